import { and, desc, eq, lt, or } from "drizzle-orm";
import { database } from "./db";
import { paymentAttempts } from "./schema";

export type PaymentAttempt = typeof paymentAttempts.$inferInsert;
export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;

/** Records one verify or settle attempt (audit trail and seller payment history). */
export async function recordPaymentAttempt(d1: D1Database, attempt: PaymentAttempt): Promise<void> {
  await database(d1).insert(paymentAttempts).values(attempt);
}

/**
 * For a D1 batch (one transaction): inserts the attempt only if the statement before it in the batch changed a row
 * (SQLite's `changes()`), e.g. a success report that may lose to a concurrent one.
 */
export function insertAttemptIfPreviousChanged(d1: D1Database, a: PaymentAttempt): D1PreparedStatement {
  return d1
    .prepare(
      `INSERT INTO payment_attempts (kind, correlation_id, scheme, network, payer, pay_to, merchant_wallet, asset, amount, outcome, reason, signature, started_at_ms, duration_ms)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14 WHERE changes() > 0`,
    )
    .bind(a.kind, a.correlationId, a.scheme ?? null, a.network ?? null, a.payer ?? null, a.payTo ?? null, a.merchantWallet ?? null, a.asset ?? null, a.amount ?? null, a.outcome, a.reason ?? null, a.signature ?? null, a.startedAtMs, a.durationMs);
}

/** A seller's attempts, newest first; `beforeId` pages backwards. */
export async function listPaymentAttemptsForMerchant(
  d1: D1Database,
  merchantWallet: string,
  payTo: string[],
  limit: number,
  beforeId?: number,
): Promise<PaymentAttemptRow[]> {
  const owner = or(eq(paymentAttempts.merchantWallet, merchantWallet), ...payTo.map((p) => eq(paymentAttempts.payTo, p)));
  return database(d1)
    .select()
    .from(paymentAttempts)
    .where(beforeId ? and(owner, lt(paymentAttempts.id, beforeId)) : owner)
    .orderBy(desc(paymentAttempts.id))
    .limit(limit);
}
