/**
 * One command from a Cloudflare account to a running facilitator (docs/deploy.md):
 *
 * npm run deploy:setup -- --env preview|production [--dry-run] [--fee-payer-keypair <solana-keygen file>] [--config
 * <wrangler.toml>]
 *
 * 1. adopts the environment's D1 database and KV namespace — the ids wrangler.toml already has, else by name —
 *    creating them when absent, and writes their ids into the environment's tables of wrangler.toml;
 * 2. sets the Worker secrets it does not have yet — the fee payer key (generated here, or read from a keypair file)
 *    and the challenge MAC key (generated here) — through `wrangler secret bulk` on stdin: never printed, never in a
 *    file, never in a command line; a secret the Worker already has is never replaced;
 * 3. applies the remote D1 migrations, then deploys;
 * 4. prints the fee payer's address to fund.
 *
 * --dry-run runs nothing and sends nothing: it prints the exact commands, in order
 * (test/e2e/scripts/deploy-setup.test.ts). Every command is `npx wrangler …` with the operator's own wrangler login (or
 * CLOUDFLARE_API_TOKEN).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { unstable_readConfig } from "wrangler";
import {
  type Command,
  commandLine,
  commands,
  DEPLOY_ENVIRONMENTS,
  type DeployEnvironment,
  type EnvironmentNames,
  findD1Id,
  findKvId,
  GENERATED_SECRETS,
  type GeneratedSecret,
  secretNames,
  withResourceIds,
} from "./lib/deploy-plan";
import { keypairFromSeed, type LocalKeypair } from "./lib/keypair";

const ROOT = path.resolve(import.meta.dirname, "..");
const WRANGLER_TOML = path.join(ROOT, "wrangler.toml");
const USAGE =
  "usage: npm run deploy:setup -- --env preview|production [--dry-run] [--fee-payer-keypair <file>] [--config " +
  "<wrangler.toml>]";

interface Options {
  environment: DeployEnvironment;
  dryRun: boolean;
  feePayerKeypairFile: string | null;
  /** null: the repository's wrangler.toml. */
  config: string | null;
}

function parseOptions(argv: string[]): Options {
  let environment: string | null = null;
  let dryRun = false;
  let feePayerKeypairFile: string | null = null;
  let config: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--env") environment = argv[++i] ?? null;
    else if (arg.startsWith("--env=")) environment = arg.slice("--env=".length);
    else if (arg === "--dry-run") dryRun = true;
    else if (arg === "--fee-payer-keypair") feePayerKeypairFile = argv[++i] ?? null;
    else if (arg === "--config") config = path.resolve(argv[++i] ?? "");
    else throw new UsageError(`unknown argument ${arg}`);
  }
  if (!DEPLOY_ENVIRONMENTS.includes(environment as DeployEnvironment))
    throw new UsageError("--env must be preview or production");
  return { environment: environment as DeployEnvironment, dryRun, feePayerKeypairFile, config };
}

class UsageError extends Error {}

/** The names the environment's section of wrangler.toml gives (wrangler's own reader, no network). */
type Environment = EnvironmentNames & { vars: Record<string, unknown>; d1Id: string | null; kvId: string | null };

function environmentNames(environment: DeployEnvironment, configFile: string | null): Environment {
  const config = unstable_readConfig({ config: configFile ?? WRANGLER_TOML, env: environment }) as unknown as {
    name: string;
    vars: Record<string, unknown>;
    d1_databases: { binding: string; database_name?: string; database_id?: string }[];
    kv_namespaces: { binding: string; id?: string }[];
  };
  const d1 = config.d1_databases.find((d) => d.binding === "DB");
  const kv = config.kv_namespaces.find((k) => k.binding === "KV");
  if (!d1?.database_name || !kv)
    throw new Error(
      `wrangler.toml ` +
        `[env.${environment}] needs a DB d1_databases binding with a database_name and a KV kv_namespaces binding`,
    );
  return {
    environment,
    worker: config.name,
    d1Binding: d1.binding,
    d1Name: d1.database_name,
    kvBinding: kv.binding,
    kvTitle: `${d1.database_name}-kv`,
    config: configFile,
    vars: config.vars,
    d1Id: d1.database_id ?? null,
    kvId: kv.id ?? null,
  };
}

/** The fee payer: read from a Solana CLI keypair file (a JSON array of 64 bytes), checked, or generated. */
function feePayerKeypair(file: string | null): LocalKeypair {
  if (file === null) return keypairFromSeed(new Uint8Array(randomBytes(32)));
  const bytes = Uint8Array.from(JSON.parse(readFileSync(file, "utf8")) as number[]);
  if (bytes.length !== 64) throw new UsageError(`${file}: not a Solana keypair file (a JSON array of 64 bytes)`);
  const keypair = keypairFromSeed(bytes.slice(0, 32));
  if (keypair.publicKey.some((byte, i) => byte !== bytes[32 + i]))
    throw new UsageError(`${file}: its public half does not match its secret half`);
  return keypair;
}

function printPlan(names: EnvironmentNames, feePayerAddress: string | null): void {
  const env = names.environment;
  const step = (title: string, lines: [Command, string?][]) => {
    console.log(`\n${title}`);
    for (const [command, note] of lines) console.log(`   $ ${commandLine(command)}${note ? `   # ${note}` : ""}`);
  };
  step(
    "1. D1 database: the id in wrangler.toml when it has one (then nothing runs), else adopted by name, created when " +
      "absent",
    [
      [commands.listD1(names)],
      [commands.createD1(names), "only when the list does not have it"],
      [commands.listD1(names), "only after a create: reads the new id"],
    ],
  );
  step(
    "2. KV namespace: the id in wrangler.toml when it has one (then nothing runs), else adopted by title, created " +
      "when absent",
    [
      [commands.listKv(names)],
      [commands.createKv(names), "only when the list does not have it"],
      [commands.listKv(names), "only after a create: reads the new id"],
    ],
  );
  console.log(
    `\n3. Both ids are written into [[env.${env}.d1_databases]] and [[env.${env}.kv_namespaces]] of wrangler.toml`,
  );
  step("4. Secrets the Worker does not have yet, generated here and sent on stdin", [
    [commands.listSecrets(names), "a Worker that does not exist yet has none"],
    [commands.putSecrets(names, GENERATED_SECRETS), "only the missing ones; an existing secret is never replaced"],
  ]);
  step("5. Remote D1 migrations", [[commands.applyMigrations(names)]]);
  step("6. Deploy", [[commands.deploy(names)]]);
  console.log(
    `\n7. Fund the fee ` +
      `payer: ${
        feePayerAddress ??
        "its address is printed once it is generated (a fee payer the Worker already has: " + "GET /supported, signers)"
      }`,
  );
}

/** Spawns one command, printed first; stdout is captured when the answer is read, else shown. */
function run(
  command: Command,
  { capture = false, input }: { capture?: boolean; input?: string } = {},
): { ok: boolean; stdout: string; stderr: string } {
  console.log(`$ ${commandLine(command)}`);
  const result = spawnSync(command.program, command.args, {
    cwd: ROOT,
    encoding: "utf8",
    input,
    stdio: [input === undefined ? "inherit" : "pipe", capture ? "pipe" : "inherit", capture ? "pipe" : "inherit"],
  });
  return { ok: result.status === 0, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

function mustRun(command: Command, options: { capture?: boolean; input?: string } = {}): string {
  const result = run(command, options);
  if (!result.ok) throw new Error(`failed: ${commandLine(command)}\n${result.stderr}`);
  return result.stdout;
}

function adopt(
  kind: string,
  configured: string | null,
  list: Command,
  create: Command,
  find: (listOutput: string) => string | null,
): string {
  if (configured) {
    console.log(`   ${kind}: ${configured} (the id wrangler.toml has)`);
    return configured;
  }
  const existing = find(mustRun(list, { capture: true }));
  if (existing) {
    console.log(`   ${kind} exists: ${existing} (adopted)`);
    return existing;
  }
  mustRun(create);
  const created = find(mustRun(list, { capture: true }));
  if (!created) throw new Error(`${kind} was created but is not listed`);
  console.log(`   ${kind} created: ${created}`);
  return created;
}

function existingSecrets(names: EnvironmentNames): Set<string> {
  const result = run(commands.listSecrets(names), { capture: true });
  if (result.ok) return secretNames(result.stdout);
  if (/not found/i.test(result.stderr)) return new Set(); // a Worker not deployed yet: `secret bulk` creates it
  throw new Error(`failed: ${commandLine(commands.listSecrets(names))}\n${result.stderr}`);
}

function setUp(options: Options): void {
  const names = environmentNames(options.environment, options.config);
  const tomlFile = options.config ?? WRANGLER_TOML;
  const suppliedFeePayer = options.feePayerKeypairFile === null ? null : feePayerKeypair(options.feePayerKeypairFile);
  console.log(
    `deploy:setup ` +
      `--env ${names.environment}${
        options.dryRun ? " (dry run: no command is run and nothing is sent; a real run " + "makes these, in order)" : ""
      }\n` +
      `Worker ${names.worker} · D1 ` +
      `database ${names.d1Name} (binding ${names.d1Binding}) · KV ` +
      `namespace ${names.kvTitle} (binding ${names.kvBinding})`,
  );
  if (options.dryRun) {
    printPlan(names, suppliedFeePayer?.address ?? null);
    printNotes(names);
    return;
  }

  const d1Id = adopt("D1 database", names.d1Id, commands.listD1(names), commands.createD1(names), (out) =>
    findD1Id(out, names.d1Name),
  );
  const kvId = adopt("KV namespace", names.kvId, commands.listKv(names), commands.createKv(names), (out) =>
    findKvId(out, names.kvTitle),
  );
  const toml = readFileSync(tomlFile, "utf8");
  const updated = withResourceIds(toml, names.environment, { d1Id, kvId });
  if (updated !== toml) writeFileSync(tomlFile, updated);
  console.log(`   ${path.basename(tomlFile)} [env.${names.environment}]: database_id = ${d1Id}, KV id = ${kvId}`);

  const existing = existingSecrets(names);
  if (suppliedFeePayer && existing.has("FEE_PAYER_SECRET_KEY")) {
    throw new UsageError(
      `${names.worker} already has FEE_PAYER_SECRET_KEY: this setup never replaces a secret (to rotate it: npx ` +
        `wrangler secret put FEE_PAYER_SECRET_KEY --env ${names.environment})`,
    );
  }
  const missing = GENERATED_SECRETS.filter((name) => !existing.has(name));
  let feePayerAddress: string | null = null;
  if (missing.length > 0) {
    const values: Partial<Record<GeneratedSecret, string>> = {};
    for (const name of missing) {
      if (name === "FEE_PAYER_SECRET_KEY") {
        const keypair = suppliedFeePayer ?? feePayerKeypair(null);
        values[name] = keypair.secretKeyBase58;
        feePayerAddress = keypair.address;
      } else {
        values[name] = randomBytes(48).toString("base64url");
      }
    }
    mustRun(commands.putSecrets(names, missing), { input: JSON.stringify(values) });
  }
  console.log(
    `   secrets already set: ${[...existing].sort().join(", ") || "none"}; set now: ${missing.join(", ") || "none"}`,
  );

  mustRun(commands.applyMigrations(names));
  mustRun(commands.deploy(names));

  console.log(
    feePayerAddress
      ? `\nFund the fee ` +
          `payer ${feePayerAddress} with SOL (it pays the network fee of each valid payment; keep it above ` +
          `SVC_FEE_PAYER_MIN_LAMPORTS, 0.1 SOL by default).`
      : "\nThe fee payer was already set: its address is in GET /supported (signers). Keep it funded above " +
          "SVC_FEE_PAYER_MIN_LAMPORTS.",
  );
  printNotes(names);
}

function printNotes(names: Environment): void {
  if (names.environment === "preview")
    console.log("Devnet SOL: https://faucet.solana.com (the fee payer's address above).");
  if (!names.vars.UNIVERSAL_SETTLE_PROGRAM_ID) {
    console.log(
      "UNIVERSAL_SETTLE_PROGRAM_ID is not set for this environment: set it only to an id you verified " +
        '(docs/deploy.md, "UniversalSettle on mainnet").',
    );
  }
  if (String(names.vars.SOLANA_RPC_URL ?? "").includes("api.mainnet-beta.solana.com")) {
    console.log(
      "SOLANA_RPC_URL is the public mainnet endpoint: use a private one (a secret when it carries a key: npx " +
        "wrangler secret put SOLANA_RPC_URL --env production).",
    );
  }
}

try {
  setUp(parseOptions(process.argv.slice(2)));
} catch (error) {
  console.error(`deploy:setup: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof UsageError) console.error(USAGE);
  process.exit(1);
}
