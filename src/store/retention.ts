/**
 * Deletes in bounded batches, oldest first, so one scheduled run never holds D1 for long or exceeds its limits.
 * Returns how many rows went.
 */
export async function purgePaymentAttemptsBefore(d1: D1Database, beforeMs: number, batchSize: number): Promise<number> {
  const result = await d1
    .prepare(
      `DELETE FROM payment_attempts WHERE id IN (SELECT id FROM payment_attempts WHERE started_at_ms < ? ORDER BY id ` +
        `LIMIT ?)`,
    )
    .bind(beforeMs, batchSize)
    .run();
  return result.meta.changes ?? 0;
}

/** A consumed challenge only has to outlive its own expiry (after that its MAC'd expiry refuses it anyway). */
export async function purgeConsumedChallengesExpiredBefore(
  d1: D1Database,
  beforeMs: number,
  batchSize: number,
): Promise<number> {
  const result = await d1
    .prepare(
      `DELETE FROM consumed_challenges WHERE nonce IN (SELECT nonce FROM consumed_challenges WHERE expires_at_ms < ? ` +
        `LIMIT ?)`,
    )
    .bind(beforeMs, batchSize)
    .run();
  return result.meta.changes ?? 0;
}

/**
 * The exposure budget's spend by the hour (fee_payer_spend_hours): an hour older than the caps' day counts for nothing
 * any more (a booking is counted a day, src/chain/fee-payer-budget/caps.ts SPEND_WINDOW_MS).
 */
export async function purgeSpendHoursBefore(d1: D1Database, beforeMs: number, batchSize: number): Promise<number> {
  const result = await d1
    .prepare(
      `DELETE FROM fee_payer_spend_hours WHERE rowid IN (SELECT rowid FROM fee_payer_spend_hours WHERE hour_ms < ? ` +
        `LIMIT ?)`,
    )
    .bind(beforeMs, batchSize)
    .run();
  return result.meta.changes ?? 0;
}
