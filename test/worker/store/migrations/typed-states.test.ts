import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ESCROW_WATCH_STATES } from "../../../../src/rails/sla-escrow/store/states";
import { UPTO_CHANNEL_STATES } from "../../../../src/rails/upto/store/states";
import { JOB_RUN_OUTCOMES } from "../../../../src/store/states";
import { applyMigrations, databaseBefore, MIGRATIONS } from "../../../support/workerd/migration-steps";

/**
 * Migration 0012: the state and outcome columns take only their closed sets (src/store/states.ts), enforced by a
 * CHECK in D1, and the table rebuild that adds the CHECKs keeps every row: the real migration SQL runs on rows written
 * by the schema before it (migrations 0000–0011), as wrangler runs it on a deployed database.
 */
const NOW = 1_800_000_000_000;

function insertWatch(pda: string, state: string) {
  return env.DB.prepare(
    `INSERT INTO escrow_watch (payment_pda, funding_signature, state, next_check_at_ms, created_at_ms, ` +
      `updated_at_ms) VALUES (?1, 'sig', ?2, ?3, ?3, ?3)`,
  )
    .bind(pda, state, NOW)
    .run();
}

function insertChannel(id: string, state: string) {
  return env.DB.prepare(
    `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, token_program, ` +
      `deposit, expires_at, state, next_check_at_ms, created_at_ms, updated_at_ms)
     VALUES (?1, 'hash-' || ?1, 'bh', 'payer', 'payTo', 'mint', 'tp', '10', 1, ?2, ?3, ?3, ?3)`,
  )
    .bind(id, state, NOW)
    .run();
}

function insertJobRun(job: string, outcome: string) {
  return env.DB.prepare(
    `INSERT INTO job_runs (job, trigger, started_at_ms, finished_at_ms, outcome, lamports_spent) VALUES (?1, 'cron', ` +
      `?2, ?2, ?3, '0')`,
  )
    .bind(job, NOW, outcome)
    .run();
}

describe("typed states (migration 0012)", () => {
  it("accepts every value of each closed set and refuses any other", async () => {
    for (const state of ESCROW_WATCH_STATES) await insertWatch(`watch-${state}`, state);
    for (const state of UPTO_CHANNEL_STATES) await insertChannel(`channel-${state}`, state);
    for (const outcome of JOB_RUN_OUTCOMES) await insertJobRun(`job-${outcome}`, outcome);
    await expect(insertWatch("watch-bad", "released")).rejects.toThrow(/CHECK constraint failed/);
    await expect(insertChannel("channel-bad", "settled")).rejects.toThrow(/CHECK constraint failed/);
    await expect(insertJobRun("job-bad", "skipped")).rejects.toThrow(/CHECK constraint failed/);
  });

  it("the rebuild keeps every row and its indexes", async () => {
    // The rows as the schema before 0012 held them (every value of each set), then 0012 itself.
    await databaseBefore("0012");
    for (const state of ESCROW_WATCH_STATES) await insertWatch(`watch-${state}`, state);
    for (const state of UPTO_CHANNEL_STATES) await insertChannel(`channel-${state}`, state);
    for (const outcome of JOB_RUN_OUTCOMES) await insertJobRun(`job-${outcome}`, outcome);
    const before = await Promise.all(
      ["escrow_watch", "upto_channels", "job_runs"].map((table) =>
        env.DB.prepare(`SELECT * FROM ${table} ORDER BY 1`).all(),
      ),
    );
    expect(before.map((r) => r.results.length)).toEqual([
      ESCROW_WATCH_STATES.length,
      UPTO_CHANNEL_STATES.length,
      JOB_RUN_OUTCOMES.length,
    ]);
    await applyMigrations(MIGRATIONS.filter((m) => m.name.startsWith("0012_")));
    const after = await Promise.all(
      ["escrow_watch", "upto_channels", "job_runs"].map((table) =>
        env.DB.prepare(`SELECT * FROM ${table} ORDER BY 1`).all(),
      ),
    );
    expect(after.map((r) => r.results)).toEqual(before.map((r) => r.results));
    const indexes = await env.DB.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('escrow_watch', 'upto_channels') AND ` +
        `name NOT LIKE 'sqlite_%' ORDER BY name`,
    ).all();
    expect(indexes.results.map((r) => r.name)).toEqual([
      "escrow_watch_due_idx",
      "escrow_watch_purge_idx",
      "upto_channels_due_idx",
      "upto_channels_pay_to_idx",
      "upto_channels_payer_idx",
      "upto_channels_payer_opens_idx",
      "upto_channels_purge_idx",
      "upto_channels_rent_idx",
    ]);
  });
});
