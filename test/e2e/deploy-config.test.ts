/**
 * Issue 20 §5: wrangler.toml as `wrangler deploy` reads it. Each environment deploys without a configuration warning
 * (a top-level var an environment does not repeat is not inherited: wrangler warns, and the deployment silently lacks
 * it), and the top level names neither ENVIRONMENT nor the demo oracle, so a deploy without --env fails closed.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

const ROOT = path.resolve(import.meta.dirname, "../..");

function dryRunDeploy(environment: string): string {
  const result = spawnSync(process.execPath, [path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--env", environment, "--outdir", path.join(ROOT, ".wrangler", `dry-run-${environment}`)], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return `${result.stdout}\n${result.stderr}`;
}

describe("wrangler deploy --dry-run", () => {
  for (const environment of ["production", "preview"]) {
    it(`--env ${environment} prints no configuration warning and sets ENVIRONMENT explicitly`, () => {
      const output = dryRunDeploy(environment);
      expect(output).not.toMatch(/WARNING|not inherited/i);
      expect(output).toContain(`env.ENVIRONMENT ("${environment}")`);
      expect(output).not.toContain("2qHwqqzYw91UPTeHJ3Kp8P5aX5my3sCTz4NkmwLv5qTF");
    }, 150_000);
  }

  it("the top level sets neither ENVIRONMENT nor an oracle (a deploy without --env fails closed)", () => {
    const vars = unstable_readConfig({ config: path.join(ROOT, "wrangler.toml") }).vars ?? {};
    expect(Object.keys(vars).sort()).toEqual(["SOLANA_CLUSTER", "SOLANA_RPC_URL"]);
  });
});
