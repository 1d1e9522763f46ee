// Bindings the worker tests see through `cloudflare:test` (wrangler.toml plus vitest.config.ts test bindings).
declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    KV: KVNamespace;
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    SOLANA_RPC_URL: string;
  }
}
