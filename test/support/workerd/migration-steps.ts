import { env } from "cloudflare:test";

/** One migration as `readD1Migrations` reads it (vitest.config.ts binds them all as TEST_MIGRATIONS). */
export type Migration = { name: string; queries: string[] };
export const MIGRATIONS = env.TEST_MIGRATIONS as Migration[];

/** Runs migrations in order, each as one batch (as wrangler applies them). */
export async function applyMigrations(migrations: readonly Migration[]): Promise<void> {
  for (const m of migrations) await env.DB.batch(m.queries.map((q) => env.DB.prepare(q)));
}

/** The migrations numbered `number` ("0013") and after it. */
export const migrationsFrom = (number: string) => MIGRATIONS.filter((m) => m.name >= `${number}_`);

/**
 * Empties this test file's database and builds it again from the migrations before `number` ("0013"): the schema a
 * deployed database had before that migration, to write old rows into and then migrate them.
 */
export async function databaseBefore(number: string): Promise<void> {
  // Virtual (full-text) tables first: they drop their shadow tables with them.
  for (const virtual of [true, false]) {
    const { results } = await env.DB.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ` +
        `AND name <> 'd1_migrations' AND (sql LIKE 'CREATE VIRTUAL TABLE%') = ?1`,
    )
      .bind(virtual ? 1 : 0)
      .all<{ name: string }>();
    for (const { name } of results) await env.DB.prepare(`DROP TABLE \`${name}\``).run();
  }
  await env.DB.prepare(`DELETE FROM sqlite_sequence`).run();
  await applyMigrations(MIGRATIONS.filter((m) => m.name < `${number}_`));
}
