/**
 * The escrow keeper's bookkeeping in D1: one row per sla-escrow payment settled here, open until the chain shows it
 * released or refunded. A run claims its rows (one conditional UPDATE) before reading or sending anything, so two
 * runs never act on the same payment while the claim lasts.
 */

export interface WatchedPayment {
  paymentPda: string;
  mint: string;
  fundingSignature: string;
  createdAtMs: number;
}

/** Called by escrow settle before it sends the funding: a payment is watched even if the response is lost. */
export async function watchEscrowPayment(d1: D1Database, payment: { paymentPda: string; mint: string; fundingSignature: string }, nowMs: number): Promise<void> {
  await d1
    .prepare(
      `INSERT INTO escrow_watch (payment_pda, mint, funding_signature, state, next_check_at_ms, created_at_ms, updated_at_ms)
       VALUES (?1, ?2, ?3, 'open', ?4, ?4, ?4) ON CONFLICT (payment_pda) DO NOTHING`,
    )
    .bind(payment.paymentPda, payment.mint, payment.fundingSignature, nowMs)
    .run();
}

/** Claims up to `limit` open, due payments not held by a live claim (oldest check first); returns those won. */
export async function claimDuePayments(d1: D1Database, claimId: string, nowMs: number, claimMs: number, limit: number): Promise<WatchedPayment[]> {
  const { results } = await d1
    .prepare(
      `UPDATE escrow_watch SET claim_id = ?1, claim_expires_at_ms = ?2, updated_at_ms = ?3
       WHERE payment_pda IN (
         SELECT payment_pda FROM escrow_watch
         WHERE state = 'open' AND next_check_at_ms <= ?3 AND (claim_expires_at_ms IS NULL OR claim_expires_at_ms <= ?3)
         ORDER BY next_check_at_ms LIMIT ?4)
       AND (claim_expires_at_ms IS NULL OR claim_expires_at_ms <= ?3)
       RETURNING payment_pda AS paymentPda, mint, funding_signature AS fundingSignature, created_at_ms AS createdAtMs`,
    )
    .bind(claimId, nowMs + claimMs, nowMs, limit)
    .all<WatchedPayment>();
  return results;
}

/** Lists open, due payments without claiming them (dry run). */
export async function peekDuePayments(d1: D1Database, nowMs: number, limit: number): Promise<WatchedPayment[]> {
  const { results } = await d1
    .prepare(
      `SELECT payment_pda AS paymentPda, mint, funding_signature AS fundingSignature, created_at_ms AS createdAtMs FROM escrow_watch
       WHERE state = 'open' AND next_check_at_ms <= ?1 AND (claim_expires_at_ms IS NULL OR claim_expires_at_ms <= ?1)
       ORDER BY next_check_at_ms LIMIT ?2`,
    )
    .bind(nowMs, limit)
    .all<WatchedPayment>();
  return results;
}

export interface WatchOutcome {
  paymentPda: string;
  /** closed: released or refunded (or never funded); open: look again at nextCheckAtMs. */
  state: "open" | "closed";
  nextCheckAtMs: number;
  action: "release" | "refund" | "close" | "none";
  signature: string | null;
  outcome: string;
  /** A sent payout keeps its claim until it expires, so no other run re-sends before the chain has answered. */
  keepClaim: boolean;
}

/** Records every outcome of one run in one batch; only rows still held by this run's claim change. */
export async function recordWatchOutcomes(d1: D1Database, claimId: string, outcomes: readonly WatchOutcome[], nowMs: number): Promise<void> {
  if (outcomes.length === 0) return;
  await d1.batch(
    outcomes.map((o) =>
      d1
        .prepare(
          `UPDATE escrow_watch SET state = ?1, next_check_at_ms = ?2, last_action = ?3, last_signature = COALESCE(?4, last_signature),
             last_outcome = ?5, updated_at_ms = ?6,
             claim_id = CASE WHEN ?7 THEN claim_id ELSE NULL END,
             claim_expires_at_ms = CASE WHEN ?7 THEN claim_expires_at_ms ELSE NULL END
           WHERE payment_pda = ?8 AND claim_id = ?9`,
        )
        .bind(o.state, o.nextCheckAtMs, o.action, o.signature, o.outcome, nowMs, o.keepClaim ? 1 : 0, o.paymentPda, claimId),
    ),
  );
}
