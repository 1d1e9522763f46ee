/**
 * wrangler.toml as `wrangler deploy` reads it. Each environment deploys without a configuration warning
 * (a top-level var an environment does not repeat is not inherited: wrangler warns, and the deployment silently lacks
 * it), and the top level names neither ENVIRONMENT nor the demo oracle, so a deploy without --env fails closed. The
 * Worker's upload stays within the project's 300 KiB gzip budget.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

const ROOT = path.resolve(import.meta.dirname, "../../..");

function dryRunDeploy(environment: string): string {
  const result = spawnSync(
    process.execPath,
    [
      path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
      "deploy",
      "--dry-run",
      "--env",
      environment,
      "--outdir",
      path.join(ROOT, ".wrangler", `dry-run-${environment}`),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        CI: "true",
        WRANGLER_SEND_METRICS: "false",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        NO_COLOR: "1",
        FORCE_COLOR: "0",
      },
      encoding: "utf8",
      // Ends a hang only: a bundle's time is the machine's speed (seconds quiet, minutes beside other test runs).
      timeout: 600_000,
    },
  );
  expect(result.status, result.stderr).toBe(0);
  return `${result.stdout}\n${result.stderr}`;
}

describe("wrangler deploy --dry-run", () => {
  for (const environment of ["production", "preview"]) {
    it(`--env ${environment} prints no configuration warning, sets ENVIRONMENT explicitly, and stays within the ` +
      `bundle budget`, () => {
      const output = dryRunDeploy(environment);
      expect(output).not.toMatch(/WARNING|not inherited/i);
      expect(output).toContain(`env.ENVIRONMENT ("${environment}")`);
      expect(output).not.toContain("2qHwqqzYw91UPTeHJ3Kp8P5aX5my3sCTz4NkmwLv5qTF");
      // The pages' scripts and styles go up as static assets, not inside the Worker (docs/running-locally.md).
      expect(output).toMatch(/Read \d+ files from the assets directory .*static/);
      const gzipKiB = Number(/Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(output)?.[1]);
      expect(gzipKiB).toBeGreaterThan(0);
      expect(gzipKiB, "the Worker's upload, gzip (KiB)").toBeLessThanOrEqual(300);
    }, 600_000);
  }

  it(
    "each environment has rate-limit namespaces of its own, the same bindings and limits, and no placeholder D1 or " +
      "KV ids",
    () => {
      type Bindings = {
        ratelimits: { name: string; namespace_id: string; simple: unknown }[];
        d1_databases: { binding: string; database_name?: string; database_id?: string }[];
        kv_namespaces: { binding: string; id?: string }[];
      };
      const read = (env?: string) =>
        unstable_readConfig({
          config: path.join(ROOT, "wrangler.toml"),
          ...(env ? { env } : {}),
        }) as unknown as Bindings;
      const environments = [undefined, "preview", "production"].map((env) => ({ env, config: read(env) }));
      const namespaceIds = environments.flatMap(({ config }) => config.ratelimits.map((r) => r.namespace_id));
      expect(new Set(namespaceIds).size).toBe(namespaceIds.length);
      const shape = (env?: string) =>
        read(env)
          .ratelimits.map(({ name, simple }) => ({ name, simple }))
          .sort((a, b) => a.name.localeCompare(b.name));
      expect(shape("preview")).toEqual(shape());
      expect(shape("production")).toEqual(shape());
      // Ids are left out (npm run deploy:setup writes the operator's own), never a placeholder to replace by hand.
      for (const env of ["preview", "production"]) {
        const config = read(env);
        expect(config.d1_databases.map((d) => [d.binding, d.database_name])).toEqual([
          ["DB", `x402-facilitator-${env}`],
        ]);
        expect(config.d1_databases[0]!.database_id ?? "absent").toMatch(
          /^(absent|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/,
        );
        expect(config.kv_namespaces.map((k) => k.binding)).toEqual(["KV"]);
        expect(config.kv_namespaces[0]!.id ?? "absent").toMatch(/^(absent|[0-9a-f]{32})$/);
      }
    },
  );

  it("the top level sets neither ENVIRONMENT nor an oracle (a deploy without --env fails closed)", () => {
    const vars = unstable_readConfig({ config: path.join(ROOT, "wrangler.toml") }).vars ?? {};
    expect(Object.keys(vars).sort()).toEqual(["SOLANA_CLUSTER", "SOLANA_RPC_URL"]);
  });
});
