import type { SettleLedgerObject } from "./settlement/settle-ledger-object";

/** Bindings, variables and secrets the Worker receives (see wrangler.toml and docs/configuration.md). */
export interface Env {
  DB: D1Database;
  KV: KVNamespace;
  /** The settle ledger's Durable Objects (SVC_SETTLE_LEDGER=object, src/settlement/settle-ledger-object.ts). */
  SETTLE_LEDGER?: DurableObjectNamespace<SettleLedgerObject>;
  /**
   * The files of static/ (wrangler.toml [assets]), for the paths the Worker answers itself where no edge serves them.
   */
  ASSETS?: Fetcher;
  /** Workers Analytics Engine dataset for per-request telemetry (optional: absent means nothing is recorded). */
  TELEMETRY?: AnalyticsEngineDataset;
  /** Workers Rate Limiting bindings (wrangler.toml [[ratelimits]]); absent ones do not limit. */
  RATE_LIMIT_BUILD?: RateLimit;
  RATE_LIMIT_PAYMENT_CLIENT?: RateLimit;
  RATE_LIMIT_PAYMENT_PAYER?: RateLimit;
  RATE_LIMIT_READ?: RateLimit;

  // Plain variables (wrangler.toml [vars]); every SVC_* key may also be overridden by the D1 `parameters` table.
  [key: string]: unknown;

  // The core's secrets: never in wrangler.toml, never logged, never in a response. A rail's secrets are its
  // configuration slice's `secretKeys` (rails/<scheme>/config.ts), read through the index signature above.
  FEE_PAYER_SECRET_KEY?: string;
  /** The operator routes' bearer token (src/http/middleware/operator-auth.ts). */
  SVC_OPERATOR_TOKEN?: string;
  /** Deprecated: SVC_OPERATOR_TOKEN's former name, still read when SVC_OPERATOR_TOKEN is unset. */
  SVC_SWEEP_CRON_TOKEN?: string;
  CHALLENGE_MAC_KEY?: string;
}
