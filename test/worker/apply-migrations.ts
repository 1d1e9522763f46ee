import { applyD1Migrations, env } from "cloudflare:test";

// Every test file gets a database with the real migrations applied (the same SQL wrangler applies).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
