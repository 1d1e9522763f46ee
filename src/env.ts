/** Bindings, variables and secrets the Worker receives (see wrangler.toml and README "Configuration"). */
export interface Env {
  DB: D1Database;
  KV: KVNamespace;

  // Plain variables (wrangler.toml [vars]); every SVC_* key may also be overridden by the D1 `parameters` table.
  [key: string]: unknown;

  // Secrets: never in wrangler.toml, never logged, never in a response.
  FEE_PAYER_SECRET_KEY?: string;
  SVC_SWEEP_CRON_TOKEN?: string;
  CHALLENGE_MAC_KEY?: string;
}
