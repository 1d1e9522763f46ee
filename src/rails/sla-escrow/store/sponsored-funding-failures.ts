/**
 * Sponsored sla-escrow fundings that executed and failed on chain: the fee payer paid their network fee for nothing.
 * Counted per payer so that a buyer who empties its account between the RPC's preflight and execution cannot make
 * the fee payer pay again and again.
 */

/**
 * The window over which failed sponsored fundings of one payer are counted
 * (SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER).
 */
export const SPONSORED_FAILURE_WINDOW_MS = 24 * 60 * 60_000;

/** Records one failed sponsored funding (idempotent on the transaction signature). */
export async function recordSponsoredFundingFailure(
  d1: D1Database,
  failure: { signature: string; payer: string },
  nowMs: number,
): Promise<void> {
  await d1
    .prepare(
      `INSERT INTO sponsored_funding_failures (signature, payer, failed_at_ms) VALUES (?1, ?2, ?3) ON CONFLICT ` +
        `(signature) DO NOTHING`,
    )
    .bind(failure.signature, failure.payer, nowMs)
    .run();
}

/** Records several failures in one D1 round trip (the keeper's run). */
export async function recordSponsoredFundingFailures(
  d1: D1Database,
  failures: readonly { signature: string; payer: string }[],
  nowMs: number,
): Promise<void> {
  if (failures.length === 0) return;
  await d1.batch(
    failures.map((f) =>
      d1
        .prepare(
          `INSERT INTO sponsored_funding_failures (signature, payer, failed_at_ms) VALUES (?1, ?2, ?3) ON CONFLICT ` +
            `(signature) DO NOTHING`,
        )
        .bind(f.signature, f.payer, nowMs),
    ),
  );
}

/** How many sponsored fundings of this payer failed on chain since `sinceMs`. */
export async function countSponsoredFundingFailures(d1: D1Database, payer: string, sinceMs: number): Promise<number> {
  const row = await d1
    .prepare(`SELECT COUNT(*) AS failures FROM sponsored_funding_failures WHERE payer = ?1 AND failed_at_ms >= ?2`)
    .bind(payer, sinceMs)
    .first<{ failures: number }>();
  return row?.failures ?? 0;
}

/** Retention: the window is a day, so rows older than that only matter for the record. */
export async function purgeSponsoredFundingFailuresBefore(
  d1: D1Database,
  beforeMs: number,
  batchSize: number,
): Promise<number> {
  const result = await d1
    .prepare(
      `DELETE FROM sponsored_funding_failures WHERE signature IN (SELECT signature FROM sponsored_funding_failures ` +
        `WHERE failed_at_ms < ?1 ORDER BY failed_at_ms LIMIT ?2)`,
    )
    .bind(beforeMs, batchSize)
    .run();
  return result.meta.changes ?? 0;
}
