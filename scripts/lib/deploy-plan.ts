/**
 * The pure half of `npm run deploy:setup` (scripts/deploy-setup.ts): the wrangler commands each step runs, how their
 * answers are read, and the one edit made to wrangler.toml (the D1 and KV ids of one environment). No I/O here.
 */

export const DEPLOY_ENVIRONMENTS = ["preview", "production"] as const;
export type DeployEnvironment = (typeof DEPLOY_ENVIRONMENTS)[number];

/**
 * The Worker secrets the setup generates locally when the Worker does not have them yet (SVC_OPERATOR_TOKEN is
 * optional: docs/deploy.md).
 */
export const GENERATED_SECRETS = ["FEE_PAYER_SECRET_KEY", "CHALLENGE_MAC_KEY"] as const;
export type GeneratedSecret = (typeof GENERATED_SECRETS)[number];

/** What the environment's section of wrangler.toml names (read with wrangler's own config reader). */
export interface EnvironmentNames {
  environment: DeployEnvironment;
  worker: string;
  d1Binding: string;
  d1Name: string;
  kvBinding: string;
  /** The KV namespace's title: not in wrangler.toml (a binding has only an id), so named after the database. */
  kvTitle: string;
  /** A configuration file other than the repository's wrangler.toml (--config), passed on to every command. */
  config: string | null;
}

/** One command as it is spawned (and printed): `npx wrangler …`, never with a secret in its arguments. */
export interface Command {
  program: "npx";
  args: string[];
  /** What the command reads on stdin, described (the values themselves are never part of a Command). */
  stdin?: string;
}

const wrangler = (n: EnvironmentNames, ...args: string[]): Command => ({
  program: "npx",
  args: ["wrangler", ...args, ...(n.config ? ["--config", n.config] : [])],
});

export const commands = {
  listD1: (n: EnvironmentNames) => wrangler(n, "d1", "list", "--json"),
  createD1: (n: EnvironmentNames) => wrangler(n, "d1", "create", n.d1Name),
  listKv: (n: EnvironmentNames) => wrangler(n, "kv", "namespace", "list"),
  createKv: (n: EnvironmentNames) => wrangler(n, "kv", "namespace", "create", n.kvTitle),
  applyMigrations: (n: EnvironmentNames) =>
    wrangler(n, "d1", "migrations", "apply", n.d1Binding, "--env", n.environment, "--remote"),
  listSecrets: (n: EnvironmentNames) => wrangler(n, "secret", "list", "--env", n.environment, "--format", "json"),
  putSecrets: (n: EnvironmentNames, names: readonly string[]) => ({
    ...wrangler(n, "secret", "bulk", "--env", n.environment),
    stdin: `a JSON object with ${names.join(", ")} (generated here, never printed)`,
  }),
  deploy: (n: EnvironmentNames) => wrangler(n, "deploy", "--env", n.environment),
};

export function commandLine(command: Command): string {
  return [command.program, ...command.args].join(" ") + (command.stdin ? `   < stdin: ${command.stdin}` : "");
}

/** `wrangler d1 list --json`: the database of that name, if any. */
export function findD1Id(listJson: string, name: string): string | null {
  const rows = JSON.parse(listJson.slice(listJson.indexOf("["))) as { uuid?: unknown; name?: unknown }[];
  const row = rows.find((r) => r.name === name);
  return row && typeof row.uuid === "string" ? row.uuid : null;
}

/** `wrangler kv namespace list` (JSON): the namespace of that title, if any. */
export function findKvId(listJson: string, title: string): string | null {
  const rows = JSON.parse(listJson.slice(listJson.indexOf("["))) as { id?: unknown; title?: unknown }[];
  const row = rows.find((r) => r.title === title);
  return row && typeof row.id === "string" ? row.id : null;
}

/** `wrangler secret list --format json`: the names already set. */
export function secretNames(listJson: string): Set<string> {
  const rows = JSON.parse(listJson.slice(listJson.indexOf("["))) as { name?: unknown }[];
  return new Set(rows.flatMap((r) => (typeof r.name === "string" ? [r.name] : [])));
}

/**
 * wrangler.toml with the environment's D1 `database_id` and KV `id` set (replaced when present, else added under the
 * binding), and nothing else changed. Throws when the environment's tables are not found.
 */
export function withResourceIds(
  toml: string,
  environment: DeployEnvironment,
  ids: { d1Id: string; kvId: string },
): string {
  let text = setInTable(toml, `[[env.${environment}.d1_databases]]`, "database_id", ids.d1Id, "database_name");
  text = setInTable(text, `[[env.${environment}.kv_namespaces]]`, "id", ids.kvId, "binding");
  return text;
}

function setInTable(toml: string, header: string, key: string, value: string, after: string): string {
  const lines = toml.split("\n");
  const start = lines.findIndex((line) => line.trim() === header);
  if (start < 0) throw new Error(`wrangler.toml has no ${header} table`);
  let end = start + 1;
  while (end < lines.length && !lines[end]!.trim().startsWith("[")) end++;
  const assignment = `${key} = ${JSON.stringify(value)}`;
  const keyPattern = new RegExp(`^\\s*${key}\\s*=`);
  const existing = lines.findIndex((line, i) => i > start && i < end && keyPattern.test(line));
  if (existing >= 0) {
    lines[existing] = assignment;
  } else {
    const anchorPattern = new RegExp(`^\\s*${after}\\s*=`);
    const anchor = lines.findIndex((line, i) => i > start && i < end && anchorPattern.test(line));
    if (anchor < 0) throw new Error(`${header} in wrangler.toml has no ${after}`);
    lines.splice(anchor + 1, 0, assignment);
  }
  return lines.join("\n");
}
