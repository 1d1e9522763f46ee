import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, databaseBefore, migrationsFrom } from "../support/workerd/migration-steps";

/**
 * Migration 0017 over bookings written before it: each keeps its row and gets the pool its kind belonged to (a priority
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

describe("migration 0017 over bookings written by the schema of 0016", () => {
  beforeAll(async () => {
    await databaseBefore("0017");
    for (const [kind, rail] of KINDS)
      await env.DB.prepare(
        `INSERT INTO fee_payer_exposure (booking_id, rail, kind, payer, pay_to, lamports, state, booked_at_ms, updated_at_ms, fee_payer)
         VALUES (?1, ?2, ?3, 'buyer', 'seller', 10000, 'spent', ?4, ?4, 'fee-payer')`,
      )
        .bind(`booking-${kind}`, rail, kind, NOW)
        .run();
    await applyMigrations(migrationsFrom("0017"));
  });

  it("every row is kept, in the pool of its kind, tied to no settlement", async () => {
    const { results } = await env.DB.prepare(
      "SELECT booking_id, rail, kind, lamports, state, fee_payer, pool, settlement_hash FROM fee_payer_exposure ORDER BY booking_id",
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

  it("a pool outside the closed set is refused", async () => {
    await expect(
      env.DB.prepare(
        "UPDATE fee_payer_exposure SET pool = 'strangers' WHERE booking_id = 'booking-priority_fee'",
      ).run(),
    ).rejects.toThrow(/CHECK constraint failed/);
  });
});
