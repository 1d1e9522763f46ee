import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { LOCAL_VARS } from "./scripts/lib/local-vars";
import { TEST_FEE_PAYER } from "./test/support/keys";
import { testLocalnetPort } from "./test/support/node/ports";

export default defineConfig({
  test: {
    // Vitest's default, one worker fewer than the cores, is a single worker on a 2-core machine: every file would run
    // after the previous one although most of them wait on the local chain or a child process. Two files at a time
    // overlap those waits (the worker project opts out below).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        // Pure logic and Node-side tools (the local chain, the SBF post-linker): plain Node.
        test: {
          name: "node",
          include: ["test/unit/**/*.test.ts", "test/localnet/**/*.test.ts", "test/programs/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The Worker as `npm start` serves it, over HTTP, with real clients. Its bundle and migrated database are made
        // once per run by the global setup (only when an e2e file runs); each file's Worker starts from a copy.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["./test/e2e-global-setup.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The Worker inside workerd with real D1 and KV, talking to a real local chain.
        plugins: [
          cloudflareTest(async () => ({
            main: "./src/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // Miniflare sends the Worker's outbound fetches through a JavaScript hop of its own that strips
              // CF-Connecting-IP; when a fetch fails (a dead RPC URL), workerd logs that hop's rejection as an "uncaught
              // exception ... Network connection lost" although the Worker catches it. Without the hop the test output
              // shows only the Worker's own uncaught errors. Nothing here reads CF-Connecting-IP on an outbound request.
              stripCfConnectingIp: false,
              bindings: {
                ...LOCAL_VARS,
                SOLANA_RPC_URL: `http://127.0.0.1:${await testLocalnetPort()}`,
                FEE_PAYER_SECRET_KEY: TEST_FEE_PAYER.secretKeyBase58,
                SVC_OPERATOR_TOKEN: "test-operator-token",
                CHALLENGE_MAC_KEY: "test-challenge-mac-key-0123456789abcdef",
                TEST_MIGRATIONS: await readD1Migrations(path.join(import.meta.dirname, "migrations")),
              },
            },
          })),
        ],
        resolve: {
          // @solana/* browser builds refuse to run in workerd ("secure browser contexts").
          mainFields: ["module", "main"],
          conditions: ["workerd", "worker", "import", "module", "default"],
        },
        test: {
          name: "worker",
          // One file at a time, after the other projects' files. Two at a time, on a 2-core machine at load 15-17,
          // files with timing in their assertions failed (a pushed confirmation after 1.1 s, a commit counted as
          // awaited, a probe run short of its batch) that pass one at a time at that load; the files also share the
          // global setup's chains and RPC fault proxies.
          maxWorkers: 1,
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["./test/global-setup.ts"],
          setupFiles: ["./test/worker/apply-migrations.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
