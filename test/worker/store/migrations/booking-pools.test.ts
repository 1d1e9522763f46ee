import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import { runRetention } from "../../../../src/jobs/retention/run-retention";
import { loadConfig, RAILS } from "../../../../src/rails/registry";
import { applyMigrations, databaseBefore, migrationsFrom } from "../../../support/workerd/migration-steps";

/**
 * Migration 0018 over bookings written before it: each keeps its row and gets the pool its kind belonged to (a priority
 * fee or a sponsored funding was a buyer's payment; rent, keeper and sweep fees the operator's jobs), no settlement,
 * and the pool's CHECK refuses any other value. Real D1, the real migration files.
 */
const NOW = 1_760_000_000_000;
const KINDS = [
  ["priority_fee", "exact", "buyers"],
  ["sponsored_funding", "sla-escrow", "buyers"],
  ["rent_spent", "exact", "jobs"],
  ["network_fee", "sweep", "jobs"],
  ["rent_held", "sla-escrow", "jobs"],
] as const;

/** fee_payer_spend_hours as the triggers kept it (hours at 0 left out). */
async function hoursAsCounted() {
  const { results } = await env.DB.prepare(
    "SELECT scope, hour_ms, lamports FROM fee_payer_spend_hours WHERE lamports <> 0 ORDER BY scope, hour_ms",
  ).all<{ scope: string; hour_ms: number; lamports: number }>();
  return results;
}

/** The same hours summed from the spent bookings themselves. */
async function hoursFromRows() {
  const { results } = await env.DB.prepare(
    `SELECT scope, hour_ms, SUM(lamports) AS lamports FROM (
       SELECT 'pool:' || pool AS scope, booked_at_ms - booked_at_ms % 3600000 AS hour_ms, lamports FROM ` +
      `fee_payer_exposure WHERE state = 'spent'
       UNION ALL SELECT 'seller:' || pay_to, booked_at_ms - booked_at_ms % 3600000, lamports FROM fee_payer_exposure
         WHERE state = 'spent' AND pool = 'sellers' AND pay_to IS NOT NULL)
     GROUP BY scope, hour_ms ORDER BY scope, hour_ms`,
  ).all<{ scope: string; hour_ms: number; lamports: number }>();
  return results;
}

describe("migration 0018 over bookings written by the schema of 0017", () => {
  beforeAll(async () => {
    await databaseBefore("0018");
    for (const [kind, rail] of KINDS)
      await env.DB.prepare(
        `INSERT INTO fee_payer_exposure (booking_id, rail, kind, payer, pay_to, lamports, state, booked_at_ms, ` +
          `updated_at_ms, fee_payer)
         VALUES (?1, ?2, ?3, 'buyer', 'seller', 10000, 'spent', ?4, ?4, 'fee-payer')`,
      )
        .bind(`booking-${kind}`, rail, kind, NOW)
        .run();
    await applyMigrations(migrationsFrom("0018"));
  });

  it("every row is kept, in the pool of its kind, tied to no settlement", async () => {
    const { results } = await env.DB.prepare(
      "SELECT booking_id, rail, kind, lamports, state, fee_payer, pool, settlement_hash FROM fee_payer_exposure " +
        "ORDER BY booking_id",
    ).all();
    expect(results).toEqual(
      [...KINDS]
        .sort(([a], [b]) => `booking-${a}`.localeCompare(`booking-${b}`))
        .map(([kind, rail, pool]) => ({
          booking_id: `booking-${kind}`,
          rail,
          kind,
          lamports: 10_000,
          state: "spent",
          fee_payer: "fee-payer",
          pool,
          settlement_hash: null,
        })),
    );
  });

  it(
    "the hours of each pool start from the rows still spent, and follow every change of a booking, whatever " +
      "statement makes it",
    async () => {
      expect(await hoursAsCounted()).toEqual(await hoursFromRows());
      const hour = NOW - (NOW % 3_600_000);
      expect((await hoursAsCounted()).find((h) => h.scope === "pool:buyers" && h.hour_ms === hour)?.lamports).toBe(
        20_000,
      );
      // Inserts, a revival, a trim, a void, a delete, a move to another pool and hour: the hours still add up.
      const at = NOW + 5 * 3_600_000;
      const insert = (id: string, pool: string, payTo: string, lamports: number) =>
        env.DB.prepare(
          `INSERT INTO fee_payer_exposure (booking_id, rail, kind, payer, pay_to, lamports, state, booked_at_ms, ` +
            `updated_at_ms, pool)
         VALUES (?1, 'exact', 'payment_fee', 'buyer', ?2, ?3, 'spent', ?4, ?4, ?5)`,
        )
          .bind(id, payTo, lamports, at, pool)
          .run();
      await insert("p1", "sellers", "proven", 10_001);
      await insert("p2", "sellers", "proven", 10_002);
      await insert("s1", "buyers", "stranger", 11_000);
      await env.DB.prepare("UPDATE fee_payer_exposure SET state = 'voided' WHERE booking_id = 'p2'").run();
      await env.DB.prepare("UPDATE fee_payer_exposure SET lamports = 9000 WHERE booking_id = 's1'").run();
      await env.DB.prepare("UPDATE fee_payer_exposure SET state = 'spent', lamports = 7 WHERE booking_id = 'p2'").run();
      await env.DB.prepare("UPDATE fee_payer_exposure SET booked_at_ms = ?1, pool = 'buyers' WHERE booking_id = 'p1'")
        .bind(at + 3_600_000)
        .run();
      await env.DB.prepare("DELETE FROM fee_payer_exposure WHERE booking_id = 'booking-network_fee'").run();
      expect(await hoursAsCounted()).toEqual(await hoursFromRows());
      expect(
        (await hoursAsCounted()).find((h) => h.scope === "seller:proven" && h.hour_ms === at - (at % 3_600_000))
          ?.lamports,
      ).toBe(7);
    },
  );

  it("the retention run deletes hours older than two days, and keeps the caps' day", async () => {
    const now = Date.now();
    const old = now - 3 * 86_400_000;
    const recent = now - (now % 3_600_000);
    for (const hour of [old - (old % 3_600_000), recent])
      await env.DB.prepare("INSERT INTO fee_payer_spend_hours (scope, hour_ms, lamports) VALUES ('pool:jobs', ?1, 5)")
        .bind(hour)
        .run();
    const outcome = await runRetention(RAILS, await loadConfig(env as unknown as Env), env as unknown as Env, now);
    expect(outcome.spendHoursDeleted).toBeGreaterThanOrEqual(1);
    const left = await env.DB.prepare(
      "SELECT hour_ms FROM fee_payer_spend_hours WHERE scope = 'pool:jobs' AND hour_ms >= ?",
    )
      .bind(now - 2 * 86_400_000)
      .all<{ hour_ms: number }>();
    expect(left.results.map((r) => r.hour_ms)).toContain(recent);
    expect(
      await env.DB.prepare("SELECT COUNT(*) AS n FROM fee_payer_spend_hours WHERE hour_ms < ?")
        .bind(now - 2 * 86_400_000)
        .first<{ n: number }>(),
    ).toEqual({ n: 0 });
  });

  it("a pool outside the closed set is refused", async () => {
    await expect(
      env.DB.prepare(
        "UPDATE fee_payer_exposure SET pool = 'strangers' WHERE booking_id = 'booking-priority_fee'",
      ).run(),
    ).rejects.toThrow(/CHECK constraint failed/);
  });
});
