import { LOCAL_DEMO_ORACLE_AUTHORITY } from "../../src/platform/config/local-demo-keys";

/**
 * The variables that make a Worker "local": wrangler.toml's top-level [vars] deliberately lack them, so a
 * `wrangler deploy` without `--env` fails closed (ENVIRONMENT is required) instead of running as local with loopback
 * probes and the demo oracle. `npm start`, the end-to-end tests and the benchmarks (scripts/lib/serve-worker.ts),
 * the workerd tests (vitest.config.ts) and `npm run dev` (package.json, as --var) pass them.
 */
export const LOCAL_VARS: Readonly<Record<string, string>> = {
  ENVIRONMENT: "local",
  // labelledKeypair("x402-facilitator/local/oracle"): the escrow demo's and the tests' oracle; refused outside local.
  SVC_SLA_ESCROW_ORACLE_AUTHORITIES: LOCAL_DEMO_ORACLE_AUTHORITY,
};
