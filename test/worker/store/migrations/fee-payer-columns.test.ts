import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SWEEP_RAIL_OUTCOMES, SWEEP_RUN_OUTCOMES } from "../../../../src/rails/exact/store/states";
import { EXPOSURE_STATES, PAYMENT_ATTEMPT_OUTCOMES } from "../../../../src/store/states";
import { applyMigrations, databaseBefore, migrationsFrom } from "../../../support/workerd/migration-steps";

/**
 * Migration 0013 on a database written by the schema before it: this file's database is emptied and built again from
 * migrations 0000–0012 (the real SQL, as wrangler applied it to a deployed database), rows are written with that old
 * schema, then 0013 runs. Every row survives the table rebuilds unchanged (the new fee_payer columns are null), the
 * new CHECKs refuse any value outside its closed set (src/store/states.ts), and an AUTOINCREMENT id never repeats.
 */
const NOW = 1_800_000_000_000;
const TABLES = ["payment_attempts", "fee_payer_exposure", "sweep_state", "sweep_runs", "upto_channels"] as const;

async function rowsOf(table: string) {
  return (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all<Record<string, unknown>>()).results;
}

const insertAttempt = (outcome: string, id?: number) =>
  env.DB.prepare(
    `INSERT INTO payment_attempts ` +
      `(${id === undefined ? "" : "id, "}kind, correlation_id, outcome, reason, started_at_ms, duration_ms) VALUES ` +
      `(${id === undefined ? "" : `${id}, `}?1, 'corr', ?2, ?3, ?4, 5)`,
  ).bind(
    outcome === "valid" || outcome === "invalid" ? "verify" : "settle",
    outcome,
    outcome === "failed" ? "transaction_failed" : null,
    NOW,
  );
const insertExposure = (state: string) =>
  env.DB.prepare(
    `INSERT INTO fee_payer_exposure (booking_id, rail, kind, payer, pay_to, lamports, state, booked_at_ms, ` +
      `updated_at_ms) VALUES (?1, 'exact', 'rent_held', 'buyer', 'seller', 2039280, ?2, ?3, ?3)`,
  ).bind(`booking-${state}`, state, NOW);
const insertSweepState = (wallet: string, outcome: string | null) =>
  env.DB.prepare(
    `INSERT INTO sweep_state (wallet_pubkey, rail, last_attempt_at_ms, last_outcome, last_error) VALUES (?1, 'SOL', ` +
      `?2, ?3, ?4)`,
  ).bind(wallet, NOW, outcome, outcome === "failed" ? "blockhash not found" : null);
const insertSweepRun = (outcome: string) =>
  env.DB.prepare(
    `INSERT INTO sweep_runs (trigger, started_at_ms, finished_at_ms, outcome, scanned, attempted, succeeded, ` +
      `skipped, failed, lamports_spent) VALUES ('cron', ?1, ?1, ?2, 1, 1, 1, 0, 0, '5000')`,
  ).bind(NOW, outcome);

describe("migration 0013 over rows written by the schema of 0012", () => {
  let before: Record<string, Record<string, unknown>[]>;

  beforeAll(async () => {
    await databaseBefore("0013");
    // Old rows: every value the code has written, and a payment attempt id above those left after a purge.
    for (const outcome of PAYMENT_ATTEMPT_OUTCOMES) await insertAttempt(outcome).run();
    await insertAttempt("settled", 41).run();
    await env.DB.prepare(`DELETE FROM payment_attempts WHERE id = 41`).run();
    for (const state of EXPOSURE_STATES) await insertExposure(state).run();
    for (const outcome of [...SWEEP_RAIL_OUTCOMES, null]) await insertSweepState(`wallet-${outcome}`, outcome).run();
    for (const outcome of SWEEP_RUN_OUTCOMES) await insertSweepRun(outcome).run();
    await env.DB.prepare(
      `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, ` +
        `token_program, deposit, expires_at, state, next_check_at_ms, created_at_ms, updated_at_ms)
       VALUES ('channel', 'hash', 'bh', 'buyer', 'seller', 'mint', 'tp', '10', 1, 'open', ?1, ?1, ?1)`,
    )
      .bind(NOW)
      .run();
    before = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await rowsOf(t)] as const)));
    await applyMigrations(migrationsFrom("0013"));
  });

  it("keeps every row as it was; the new fee_payer columns are null", async () => {
    expect(before.payment_attempts).toHaveLength(PAYMENT_ATTEMPT_OUTCOMES.length);
    for (const table of TABLES) {
      const after = await rowsOf(table);
      // Later migrations run too: 0015 adds upto_channels.last_detail (null on a row no keeper looked at), 0017
      // payment_attempts.role (null on a row written before it), 0018 the exposure's pool (a rent booking was the
      // operator's: jobs) and the settlement a booking belongs to (none).
      const added =
        table === "fee_payer_exposure"
          ? { fee_payer: null, pool: "jobs", settlement_hash: null }
          : table === "upto_channels"
            ? { fee_payer: null, last_detail: null }
            : table === "payment_attempts"
              ? { role: null }
              : {};
      expect(after, table).toEqual(before[table]!.map((row) => ({ ...row, ...added })));
    }
  });

  it("keeps the indexes of the rebuilt tables", async () => {
    const indexes = await env.DB.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('payment_attempts', ` +
        `'fee_payer_exposure', 'sweep_state') AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    ).all();
    expect(indexes.results.map((r) => r.name)).toEqual([
      "fee_payer_exposure_pay_to_idx",
      "fee_payer_exposure_payer_idx",
      "fee_payer_exposure_pool_idx",
      "fee_payer_exposure_settlement_idx",
      "fee_payer_exposure_state_idx",
      "payment_attempts_merchant_idx",
      "payment_attempts_pay_to_idx",
      "sweep_state_attempt_idx",
    ]);
  });

  it("hands out no payment attempt id already used before the rebuild", async () => {
    await insertAttempt("settled").run();
    const newest = await env.DB.prepare(`SELECT MAX(id) AS id FROM payment_attempts`).first<{ id: number }>();
    expect(newest!.id).toBe(42);
  });

  it("refuses a value outside each closed set", async () => {
    await expect(insertAttempt("refused").run()).rejects.toThrow(/CHECK constraint failed/);
    await expect(insertAttempt("settled: blockhash not found").run()).rejects.toThrow(/CHECK constraint failed/);
    await expect(
      env.DB.prepare(`UPDATE fee_payer_exposure SET state = 'released' WHERE booking_id = 'booking-held'`).run(),
    ).rejects.toThrow(/CHECK constraint failed/);
    await expect(insertSweepState("wallet-bad", "error").run()).rejects.toThrow(/CHECK constraint failed/);
    await expect(insertSweepRun("skipped").run()).rejects.toThrow(/CHECK constraint failed/);
  });
});
