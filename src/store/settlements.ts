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
  row: Omit<SettlementRow, "state" | "createdAtMs" | "updatedAtMs" | "errorReason" | "errorMessage">,
): Promise<{ claimed: true } | { claimed: false; existing: SettlementRow }> {
  const now = Date.now();
  const inserted = await database(d1)
    .insert(settlements)
    .values({ ...row, state: "submitting", createdAtMs: now, updatedAtMs: now, errorReason: null, errorMessage: null })
    .onConflictDoNothing({ target: settlements.messageHash })
    .returning({ messageHash: settlements.messageHash });
  if (inserted.length > 0) return { claimed: true };
  const existing = await getSettlement(d1, row.messageHash);
  if (!existing) throw new Error("settlement row vanished after a conflicting insert");
  return { claimed: false, existing };
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
  changes: Partial<Pick<SettlementRow, "state" | "errorReason" | "errorMessage" | "leaseId" | "leaseExpiresAtMs">>,
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
