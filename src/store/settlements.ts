import { and, eq, inArray } from "drizzle-orm";
import { database } from "./db";
import { settlements } from "./schema";

/** A payment's ledger row, as every ledger holds it (which ledger object holds it is the ledger objects' own business). */
export type SettlementRow = Omit<typeof settlements.$inferSelect, "ledgerObject">;
export type SettlementState = SettlementRow["state"];

/**
 * Claims the right to submit a payment transaction. Exactly one caller across all isolates gets `claimed`;
 * everyone else gets the existing row and reconciles from it.
 */
export type SettlementClaim =
  | { claimed: true }
  | { claimed: false; existing: SettlementRow }
  /** Another payment to the same payTo already holds this payment-identifier id. */
  | { claimed: false; paymentIdTakenBy: string };

export async function claimSettlement(
  d1: D1Database,
  row: Omit<
    SettlementRow,
    | "state"
    | "createdAtMs"
    | "updatedAtMs"
    | "errorReason"
    | "errorMessage"
    | "confirmedAtMs"
    | "successReportedAtMs"
    | "successCorrelationId"
    | "paymentId"
  > & { paymentId?: string | null },
  attempt = 0,
): Promise<SettlementClaim> {
  const now = Date.now();
  const paymentId = row.paymentId ?? null;
  // A plain prepared statement: this is on every settle's critical path, and drizzle builds the query anew each call.
  // With a payment-identifier id the same statement also claims the id: without a conflict target, DO NOTHING covers
  // the (pay_to, payment_id) unique index too, so no extra round trip decides who holds the id.
  const inserted = await d1
    .prepare(paymentId === null ? CLAIM_SQL : CLAIM_WITH_PAYMENT_ID_SQL)
    .bind(
      row.messageHash,
      row.signature,
      row.scheme,
      row.network,
      row.payer,
      row.payTo,
      row.merchantWallet,
      row.asset,
      row.amount,
      row.lastValidBlockHeight,
      row.leaseId,
      row.leaseExpiresAtMs,
      row.maxTimeoutSeconds,
      now,
      ...(paymentId === null ? [] : [paymentId]),
    )
    .run();
  if ((inserted.meta.changes ?? 0) > 0) return { claimed: true };
  const existing = await getSettlement(d1, row.messageHash);
  if (!existing && paymentId !== null) {
    // Not this payment's row: the id may belong to another payment (read only on this rare path).
    const holder = await d1
      .prepare("SELECT message_hash FROM settlements WHERE pay_to = ? AND payment_id = ? LIMIT 1")
      .bind(row.payTo, paymentId)
      .first<{ message_hash: string }>();
    if (holder && holder.message_hash !== row.messageHash)
      return { claimed: false, paymentIdTakenBy: holder.message_hash };
  }
  // Released in between (an attempt the cluster never accepted): claim it again.
  if (!existing) {
    if (attempt >= 8) throw new Error("settlement row keeps vanishing after conflicting inserts");
    return claimSettlement(d1, row, attempt + 1);
  }
  return { claimed: false, existing };
}

const CLAIM_COLUMNS = `message_hash, signature, state, scheme, network, payer, pay_to, merchant_wallet, asset, amount, last_valid_block_height,
         lease_id, lease_expires_at_ms, max_timeout_seconds, created_at_ms, updated_at_ms`;
const CLAIM_VALUES = `?1, ?2, 'submitting', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14`;
const CLAIM_SQL = `INSERT INTO settlements (${CLAIM_COLUMNS}) VALUES (${CLAIM_VALUES}) ON CONFLICT (message_hash) DO NOTHING`;
const CLAIM_WITH_PAYMENT_ID_SQL = `INSERT INTO settlements (${CLAIM_COLUMNS}, payment_id) VALUES (${CLAIM_VALUES}, ?15) ON CONFLICT DO NOTHING`;

/**
 * Gives a claimed row back when the cluster never accepted its transaction (preflight refusal, provisioning
 * fault), so a later call may try the same payment again. Never touches a row that was confirmed or reported.
 */
export async function releaseSettlement(d1: D1Database, messageHash: string): Promise<void> {
  await d1
    .prepare(
      `DELETE FROM settlements WHERE message_hash = ? AND state IN ('submitting', 'pending') AND success_reported_at_ms IS NULL`,
    )
    .bind(messageHash)
    .run();
}

export async function getSettlement(d1: D1Database, messageHash: string): Promise<SettlementRow | undefined> {
  const rows = await database(d1).select().from(settlements).where(eq(settlements.messageHash, messageHash)).limit(1);
  return rows[0];
}

/**
 * Just the state and signature of a payment's ledger row: /verify's duplicate check (when the chain refused the
 * payment). A plain prepared statement: drizzle builds the query anew on each call.
 */
export async function getSettlementState(
  d1: D1Database,
  messageHash: string,
): Promise<Pick<SettlementRow, "state" | "signature"> | undefined> {
  const row = await d1
    .prepare("SELECT state, signature FROM settlements WHERE message_hash = ? LIMIT 1")
    .bind(messageHash)
    .first<Pick<SettlementRow, "state" | "signature">>();
  return row ?? undefined;
}

/** Moves a settlement to its next state, only from the states given (so a late writer cannot undo a final state). */
export async function updateSettlement(
  d1: D1Database,
  messageHash: string,
  fromStates: SettlementState[],
  changes: Partial<
    Pick<SettlementRow, "state" | "errorReason" | "errorMessage" | "leaseId" | "leaseExpiresAtMs" | "confirmedAtMs">
  >,
): Promise<boolean> {
  const updated = await database(d1)
    .update(settlements)
    .set({ ...changes, updatedAtMs: Date.now() })
    .where(and(eq(settlements.messageHash, messageHash), inArray(settlements.state, fromStates)))
    .returning({ messageHash: settlements.messageHash });
  return updated.length > 0;
}

/** Takes over the submit lease of a stuck settlement when the previous holder's lease has run out. */
export async function takeOverLease(
  d1: D1Database,
  messageHash: string,
  leaseId: string,
  leaseMs: number,
): Promise<boolean> {
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
 * a row that was marked failed or pending to confirmed. The row's lease column then names the reporting call
 * (`reporterId`, its lease id), so a call whose write committed but whose answer was lost can recognise its own
 * report afterwards (`recordConfirmationAfterFailedReport`).
 */
export async function claimSuccessReport(
  d1: D1Database,
  messageHash: string,
  reporterId: string,
  correlationId: string | null,
  nowMs: number,
): Promise<boolean> {
  const reported = await d1
    .prepare(
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), success_reported_at_ms = ?1,
         success_correlation_id = ?2, lease_id = ?4, lease_expires_at_ms = NULL, error_reason = NULL, error_message = NULL, updated_at_ms = ?1
       WHERE message_hash = ?3 AND success_reported_at_ms IS NULL`,
    )
    .bind(nowMs, correlationId, messageHash, reporterId)
    .run();
  return (reported.meta.changes ?? 0) > 0;
}

/**
 * The ledger catching up after a success report that failed (the caller answered pending, not success): records the
 * chain's confirmation without reporting it, so the next /settle of the payment reports success once. If the failed
 * write committed after all (its answer was lost: the row names `reporterId`) and carries no correlation id, no call
 * can ever hear that success (its writer answered pending, and only a retry with the same correlation id repeats a
 * success), so the report is withdrawn for the next call to win; a report with a correlation id stays for that seller's
 * retry. Idempotent.
 */
export async function recordConfirmationAfterFailedReport(
  d1: D1Database,
  messageHash: string,
  reporterId: string,
  nowMs: number,
): Promise<void> {
  await d1
    .prepare(
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), lease_expires_at_ms = NULL,
         error_reason = NULL, error_message = NULL, updated_at_ms = ?1,
         success_reported_at_ms = CASE WHEN lease_id = ?2 AND success_correlation_id IS NULL THEN NULL ELSE success_reported_at_ms END
       WHERE message_hash = ?3`,
    )
    .bind(nowMs, reporterId, messageHash)
    .run();
}

/** The ledger row of a transaction signature (the fee payer's signature is the transaction id). */
export async function getSettlementBySignature(d1: D1Database, signature: string): Promise<SettlementRow | undefined> {
  const rows = await database(d1).select().from(settlements).where(eq(settlements.signature, signature)).limit(1);
  return rows[0];
}

/**
 * The ledger catching up with the chain (both keepers): fundings and deposits that settle answered pending and the chain
 * shows confirmed are recorded confirmed (not reported: the next /settle of the payment reports success once, as
 * usual), in one batch.
 */
export async function recordFundingsConfirmed(
  d1: D1Database,
  messageHashes: readonly string[],
  nowMs: number,
): Promise<void> {
  if (messageHashes.length === 0) return;
  await d1.batch(
    messageHashes.map((hash) =>
      d1
        .prepare(
          `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), lease_expires_at_ms = NULL, updated_at_ms = ?1
           WHERE message_hash = ?2 AND state IN ('submitting', 'pending')`,
        )
        .bind(nowMs, hash),
    ),
  );
}
