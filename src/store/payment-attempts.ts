import { and, desc, eq, lt, or } from "drizzle-orm";
import { database } from "./db";
import { paymentAttempts } from "./schema";

export type PaymentAttempt = typeof paymentAttempts.$inferInsert;
export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;

/**
 * The insert of one attempt, written out once: every settle records one, and drizzle's query builder would build the
 * same text again per call (measured: most of the Worker's own CPU for this write).
 */
const INSERT_ATTEMPT_SQL =
  "INSERT INTO payment_attempts (kind, correlation_id, scheme, network, payer, pay_to, merchant_wallet, asset, " +
  "amount, outcome, reason, signature, started_at_ms, duration_ms, role) " +
  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";

/** Records one verify or settle attempt (audit trail and seller payment history). */
export async function recordPaymentAttempt(d1: D1Database, attempt: PaymentAttempt): Promise<void> {
  await d1
    .prepare(INSERT_ATTEMPT_SQL)
    .bind(
      attempt.kind,
      attempt.correlationId,
      attempt.scheme ?? null,
      attempt.network ?? null,
      attempt.payer ?? null,
      attempt.payTo ?? null,
      attempt.merchantWallet ?? null,
      attempt.asset ?? null,
      attempt.amount ?? null,
      attempt.outcome,
      attempt.reason ?? null,
      attempt.signature ?? null,
      attempt.startedAtMs,
      attempt.durationMs,
      attempt.role ?? null,
    )
    .run();
}

/** A seller's attempts, newest first; `beforeId` pages backwards. */
export async function listPaymentAttemptsForMerchant(
  d1: D1Database,
  merchantWallet: string,
  payTo: string[],
  limit: number,
  beforeId?: number,
): Promise<PaymentAttemptRow[]> {
  const owner = or(
    eq(paymentAttempts.merchantWallet, merchantWallet),
    ...payTo.map((p) => eq(paymentAttempts.payTo, p)),
  );
  return database(d1)
    .select()
    .from(paymentAttempts)
    .where(beforeId ? and(owner, lt(paymentAttempts.id, beforeId)) : owner)
    .orderBy(desc(paymentAttempts.id))
    .limit(limit);
}
