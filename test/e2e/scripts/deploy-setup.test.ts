/**
 * `npm run deploy:setup` (scripts/deploy-setup.ts). The dry run is run as the operator runs it, for both environments,
 * in a process where any TCP connection, DNS lookup or fetch throws and where `npx` is a recorder: it must print the
 * exact wrangler commands, run none of them, and print no secret. The real run cannot reach Cloudflare here, so it
 * runs against a stand-in `npx wrangler` (test/support/node/fake-wrangler.mjs, a mock: it answers the commands the
 * way wrangler 4.84 does and records them) on a copy of wrangler.toml: what reaches `secret bulk` on stdin, what is
 * written into the copy, and that no secret is ever printed.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { labelledKeypair } from "../../../scripts/lib/keypair";
import { parseFeePayerSecretKey } from "../../../src/platform/config/fee-payer-key";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const SCRIPT = path.join(ROOT, "scripts/deploy-setup.ts");
const NO_NETWORK = path.join(ROOT, "test/support/node/no-network.mjs");
const FAKE_WRANGLER = path.join(ROOT, "test/support/node/fake-wrangler.mjs");

let workDir: string;
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

/** A scratch directory with `npx` on PATH replaced by the recorder, and a copy of wrangler.toml. */
function scratch() {
  workDir = mkdtempSync(path.join(tmpdir(), "deploy-setup-"));
  const npx = path.join(workDir, "npx");
  writeFileSync(npx, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_WRANGLER}" "$@"\n`);
  chmodSync(npx, 0o755);
  const toml = path.join(workDir, "wrangler.toml");
  copyFileSync(path.join(ROOT, "wrangler.toml"), toml);
  return { toml };
}

function setup(args: string[], { blockNetwork = false } = {}) {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", ...(blockNetwork ? ["--import", NO_NETWORK] : []), SCRIPT, ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: `${workDir}:${process.env.PATH}`,
        FAKE_WRANGLER_DIR: workDir,
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
      },
      encoding: "utf8",
      // Ends a hang only: node with tsx starting on a busy machine takes many times its quiet few seconds.
      timeout: 300_000,
    },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

const calls = (): { argv: string[]; stdin: string }[] =>
  existsSync(path.join(workDir, "calls.jsonl"))
    ? readFileSync(path.join(workDir, "calls.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
    : [];
const printedCommands = (output: string) =>
  output.split("\n").flatMap((line) => (line.startsWith("   $ ") ? [line.slice(5).replace(/ {3}#.*$/, "")] : []));

describe("npm run deploy:setup --dry-run", () => {
  for (const env of ["preview", "production"] as const) {
    it(`--env ${env}: prints the exact commands, runs none, makes no network call and prints no secret`, () => {
      scratch();
      const feePayer = labelledKeypair(`deploy-setup-test/${env}`);
      const keypairFile = path.join(workDir, "fee-payer.json");
      writeFileSync(keypairFile, JSON.stringify(Array.from(feePayer.secretKey)));
      const { status, output } = setup(["--env", env, "--dry-run", "--fee-payer-keypair", keypairFile], {
        blockNetwork: true,
      });
      expect(status, output).toBe(0);
      expect(calls()).toEqual([]);
      expect(printedCommands(output)).toEqual([
        "npx wrangler d1 list --json",
        `npx wrangler d1 create x402-facilitator-${env}`,
        "npx wrangler d1 list --json",
        "npx wrangler kv namespace list",
        `npx wrangler kv namespace create x402-facilitator-${env}-kv`,
        "npx wrangler kv namespace list",
        `npx wrangler secret list --env ${env} --format json`,
        `npx wrangler secret bulk ` +
          `--env ${env}   < stdin: a JSON object with FEE_PAYER_SECRET_KEY, CHALLENGE_MAC_KEY (generated here, never ` +
          `printed)`,
        `npx wrangler d1 migrations apply DB --env ${env} --remote`,
        `npx wrangler deploy --env ${env}`,
      ]);
      expect(output).toContain(`Fund the fee payer: ${feePayer.address}`);
      expect(output).not.toContain(feePayer.secretKeyBase58);
      expect(output).not.toContain(JSON.stringify(Array.from(feePayer.secretKey)));
      if (env === "production") expect(output).toMatch(/UNIVERSAL_SETTLE_PROGRAM_ID is not set/);
      expect(readFileSync(path.join(workDir, "wrangler.toml"), "utf8")).toBe(
        readFileSync(path.join(ROOT, "wrangler.toml"), "utf8"),
      );
    }, 300_000);
  }

  it("refuses an unknown environment and says how to call it", () => {
    scratch();
    const { status, output } = setup(["--env", "staging", "--dry-run"], { blockNetwork: true });
    expect(status).toBe(1);
    expect(output).toContain("usage: npm run deploy:setup -- --env preview|production");
  });
});

describe("npm run deploy:setup (against a stand-in wrangler)", () => {
  it("creates D1 and KV, writes their ids, sets generated secrets through stdin only, migrates, deploys; a second " +
    "run adopts and replaces nothing", async () => {
    const { toml } = scratch();
    const first = setup(["--env", "preview", "--config", toml]);
    expect(first.status, first.output).toBe(0);
    const made = calls();
    expect(made.map((c) => c.argv.slice(1, 4).join(" "))).toEqual([
      "d1 list --json",
      "d1 create x402-facilitator-preview",
      "d1 list --json",
      "kv namespace list",
      "kv namespace create",
      "kv namespace list",
      "secret list --env",
      "secret bulk --env",
      "d1 migrations apply",
      "deploy --env preview",
    ]);
    expect(made.every((c) => c.argv.at(-2) === "--config" && c.argv.at(-1) === toml)).toBe(true);

    // The ids wrangler answered are in the environment's tables of the config, and nowhere else.
    const state = JSON.parse(readFileSync(path.join(workDir, "state.json"), "utf8"));
    const config = unstable_readConfig({ config: toml, env: "preview" }) as unknown as {
      d1_databases: { database_id?: string }[];
      kv_namespaces: { id?: string }[];
    };
    expect(config.d1_databases[0]!.database_id).toBe(state.d1[0].uuid);
    expect(config.kv_namespaces[0]!.id).toBe(state.kv[0].id);
    const production = unstable_readConfig({ config: toml, env: "production" }) as unknown as {
      d1_databases: { database_id?: string }[];
    };
    expect(production.d1_databases[0]!.database_id).toBeUndefined();

    // The secrets came on stdin only, are valid, and were never printed nor passed as an argument.
    const bulk = made.find((c) => c.argv[1] === "secret" && c.argv[2] === "bulk")!;
    const secrets = JSON.parse(bulk.stdin) as Record<string, string>;
    expect(Object.keys(secrets).sort()).toEqual(["CHALLENGE_MAC_KEY", "FEE_PAYER_SECRET_KEY"]);
    const feePayer = await parseFeePayerSecretKey(secrets.FEE_PAYER_SECRET_KEY!);
    expect(new TextEncoder().encode(secrets.CHALLENGE_MAC_KEY!).length).toBeGreaterThanOrEqual(32);
    expect(first.output).toContain(`Fund the fee payer ${feePayer.address}`);
    for (const value of Object.values(secrets)) {
      expect(first.output).not.toContain(value);
      expect(made.some((c) => c.argv.includes(value))).toBe(false);
    }

    // Again: the ids are in the config and the secrets set, so nothing is looked up or created and no secret replaced.
    const before = calls().length;
    const second = setup(["--env", "preview", "--config", toml]);
    expect(second.status, second.output).toBe(0);
    const again = calls()
      .slice(before)
      .map((c) => c.argv.slice(1, 3).join(" "));
    expect(again).toEqual(["secret list", "d1 migrations", "deploy --env"]);
    expect(second.output).toContain("The fee payer was already set");
    expect(
      JSON.parse(readFileSync(path.join(workDir, "state.json"), "utf8")).secrets["worker-preview"].FEE_PAYER_SECRET_KEY,
    ).toBe(secrets.FEE_PAYER_SECRET_KEY);

    // A keypair file for a Worker that already has a fee payer is refused before anything is sent.
    const keypairFile = path.join(workDir, "other.json");
    writeFileSync(keypairFile, JSON.stringify(Array.from(labelledKeypair("deploy-setup-test/other").secretKey)));
    const third = setup(["--env", "preview", "--config", toml, "--fee-payer-keypair", keypairFile]);
    expect(third.status).toBe(1);
    expect(third.output).toContain("never replaces a secret");
    expect(calls().filter((c) => c.argv[1] === "secret" && c.argv[2] === "bulk")).toHaveLength(1);
  }, 900_000);
});
