import { and, eq, inArray } from "drizzle-orm";
import { database } from "./db";
import { settlements } from "./schema";

export type SettlementRow = typeof settlements.$inferSelect;
export type SettlementState = SettlementRow["state"];

/**
 * Claims the right to submit a payment transaction. Exactly one caller across all isolates gets `claimed`;
 * everyone else gets the existing row and reconciles from it.
 */
export async function claimSettlement(
  d1: D1Database,
  row: Omit<SettlementRow, "state" | "createdAtMs" | "updatedAtMs" | "errorReason" | "errorMessage" | "confirmedAtMs" | "successReportedAtMs" | "successCorrelationId">,
  attempt = 0,
): Promise<{ claimed: true } | { claimed: false; existing: SettlementRow }> {
  const now = Date.now();
  const inserted = await database(d1)
    .insert(settlements)
    .values({ ...row, state: "submitting", createdAtMs: now, updatedAtMs: now, errorReason: null, errorMessage: null, confirmedAtMs: null, successReportedAtMs: null, successCorrelationId: null })
    .onConflictDoNothing({ target: settlements.messageHash })
    .returning({ messageHash: settlements.messageHash });
  if (inserted.length > 0) return { claimed: true };
  const existing = await getSettlement(d1, row.messageHash);
  // Released in between (an attempt the cluster never accepted): claim it again.
  if (!existing) {
    if (attempt >= 8) throw new Error("settlement row keeps vanishing after conflicting inserts");
    return claimSettlement(d1, row, attempt + 1);
  }
  return { claimed: false, existing };
}

/**
 * Gives a claimed row back when the cluster never accepted its transaction (preflight refusal, provisioning
 * fault), so a later call may try the same payment again. Never touches a row that was confirmed or reported.
 */
export async function releaseSettlement(d1: D1Database, messageHash: string): Promise<void> {
  await d1
    .prepare(`DELETE FROM settlements WHERE message_hash = ? AND state IN ('submitting', 'pending') AND success_reported_at_ms IS NULL`)
    .bind(messageHash)
    .run();
}

export async function getSettlement(d1: D1Database, messageHash: string): Promise<SettlementRow | undefined> {
  const rows = await database(d1).select().from(settlements).where(eq(settlements.messageHash, messageHash)).limit(1);
  return rows[0];
}

/** Moves a settlement to its next state, only from the states given (so a late writer cannot undo a final state). */
export async function updateSettlement(
  d1: D1Database,
  messageHash: string,
  fromStates: SettlementState[],
  changes: Partial<Pick<SettlementRow, "state" | "errorReason" | "errorMessage" | "leaseId" | "leaseExpiresAtMs" | "confirmedAtMs">>,
): Promise<boolean> {
  const updated = await database(d1)
    .update(settlements)
    .set({ ...changes, updatedAtMs: Date.now() })
    .where(and(eq(settlements.messageHash, messageHash), inArray(settlements.state, fromStates)))
    .returning({ messageHash: settlements.messageHash });
  return updated.length > 0;
}

/** Takes over the submit lease of a stuck settlement when the previous holder's lease has run out. */
export async function takeOverLease(d1: D1Database, messageHash: string, leaseId: string, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  const result = await d1
    .prepare(
      `UPDATE settlements SET lease_id = ?1, lease_expires_at_ms = ?2, updated_at_ms = ?3
       WHERE message_hash = ?4 AND state IN ('submitting', 'pending') AND (lease_expires_at_ms IS NULL OR lease_expires_at_ms < ?3)`,
    )
    .bind(leaseId, now + leaseMs, now, messageHash)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * Records that the chain confirmed the payment and claims the one success answer it may get (issue: one payment,
 * one delivery). Exactly one caller across all isolates sees `true`; the chain is the truth, so this also moves
 * a row that was marked failed or pending to confirmed.
 */
export async function claimSuccessReport(d1: D1Database, messageHash: string, correlationId: string | null, nowMs: number): Promise<boolean> {
  const result = await d1
    .prepare(
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), success_reported_at_ms = ?1,
         success_correlation_id = ?2, lease_expires_at_ms = NULL, error_reason = NULL, error_message = NULL, updated_at_ms = ?1
       WHERE message_hash = ?3 AND success_reported_at_ms IS NULL`,
    )
    .bind(nowMs, correlationId, messageHash)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** The ledger row of a transaction signature (the fee payer's signature is the transaction id). */
export async function getSettlementBySignature(d1: D1Database, signature: string): Promise<SettlementRow | undefined> {
  const rows = await database(d1).select().from(settlements).where(eq(settlements.signature, signature)).limit(1);
  return rows[0];
}
