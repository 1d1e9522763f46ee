import { and, desc, eq, lt, or } from "drizzle-orm";
import { database } from "./db";
import { paymentAttempts } from "./schema";

export type PaymentAttempt = typeof paymentAttempts.$inferInsert;
export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;

/** Records one verify or settle attempt (audit trail and seller payment history). */
export async function recordPaymentAttempt(d1: D1Database, attempt: PaymentAttempt): Promise<void> {
  await database(d1).insert(paymentAttempts).values(attempt);
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
