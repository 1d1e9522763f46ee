import { eq } from "drizzle-orm";
import { type ClaimRiders, claimAt, type RefusalRows, refusalRowsOf, renumber, riderStatements } from "./claim-riders";
import { database } from "./db";
import { settlements } from "./schema";

/**
 * A payment's ledger row, as every ledger holds it (which ledger object holds it is the ledger objects' own business).
 */
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
  | { claimed: false; paymentIdTakenBy: string }
  /** A rider refused (a cap of the exposure budget, a rail's row taken): nothing was written; what its reads saw. */
  | { claimed: false; refused: RefusalRows };

export type ClaimInput = Omit<
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
> & { paymentId?: string | null };

/**
 * The claim. With `riders` (the budget's bookings, a rail's rows: store/claim-riders.ts) it is one batch, one
 * transaction: the riders' writes, the row (only where every rider took), the undo of riders whose payment got no row,
 * the row as it now is, and — only when nothing was claimed and no row is there — why (`refused`).
 */
export async function claimSettlement(
  d1: D1Database,
  row: ClaimInput,
  riders?: ClaimRiders,
  attempt = 0,
): Promise<SettlementClaim> {
  const now = Date.now();
  const paymentId = row.paymentId ?? null;
  const binds = [
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
    paymentId,
  ];
  if (riders) {
    const claim = d1
      .prepare(
        `INSERT INTO settlements ` +
          `(${CLAIM_COLUMNS}, payment_id) ` +
          `SELECT ${CLAIM_VALUES}, ?15 WHERE ${renumber(riders.guard.sql, 15)} ON CONFLICT DO NOTHING`,
      )
      .bind(...binds, ...riders.guard.binds);
    const { statements, rowAt } = riderStatements(
      d1,
      riders,
      claim,
      d1.prepare(SELECT_ROW_SQL).bind(row.messageHash),
      row.messageHash,
    );
    const results = await d1.batch(statements);
    if ((results[claimAt(riders)]?.meta.changes ?? 0) > 0) return { claimed: true };
    const existing = results[rowAt]?.results[0] as Record<string, unknown> | undefined;
    if (existing) return { claimed: false, existing: await getSettlement(d1, row.messageHash).then((r) => r!) };
    const refusal = refusalRowsOf(results, riders, rowAt);
    if (refusal.guardHeld === false) return { claimed: false, refused: refusal.rows };
    return paymentIdConflict(d1, row, paymentId);
  }
  // A plain prepared statement: this is on every settle's critical path, and drizzle builds the query anew each call.
  // With a payment-identifier id the same statement also claims the id: without a conflict target, DO NOTHING covers
  // the (pay_to, payment_id) unique index too, so no extra round trip decides who holds the id.
  const inserted = await d1
    .prepare(paymentId === null ? CLAIM_SQL : CLAIM_WITH_PAYMENT_ID_SQL)
    .bind(...(paymentId === null ? binds.slice(0, 14) : binds))
    .run();
  if ((inserted.meta.changes ?? 0) > 0) return { claimed: true };
  const existing = await getSettlement(d1, row.messageHash);
  if (existing) return { claimed: false, existing };
  if (paymentId !== null) {
    const conflict = await paymentIdConflict(d1, row, paymentId);
    if ("paymentIdTakenBy" in conflict) return conflict;
  }
  // Released in between (an attempt the cluster never accepted): claim it again.
  if (attempt >= 8) throw new Error("settlement row keeps vanishing after conflicting inserts");
  return claimSettlement(d1, row, riders, attempt + 1);
}

/** Not this payment's row: the id may belong to another payment (read only on this rare path). */
async function paymentIdConflict(d1: D1Database, row: ClaimInput, paymentId: string | null): Promise<SettlementClaim> {
  if (paymentId !== null) {
    const holder = await d1
      .prepare("SELECT message_hash FROM settlements WHERE pay_to = ? AND payment_id = ? LIMIT 1")
      .bind(row.payTo, paymentId)
      .first<{ message_hash: string }>();
    if (holder && holder.message_hash !== row.messageHash)
      return { claimed: false, paymentIdTakenBy: holder.message_hash };
  }
  throw new Error(`settlement ${row.messageHash}: the claim wrote nothing, found no row, and its riders took`);
}

const SELECT_ROW_SQL = "SELECT 1 AS present FROM settlements WHERE message_hash = ? LIMIT 1";

const CLAIM_COLUMNS =
  `message_hash, signature, state, scheme, network, payer, pay_to, merchant_wallet, asset, ` +
  `amount, last_valid_block_height,
         lease_id, lease_expires_at_ms, max_timeout_seconds, created_at_ms, updated_at_ms`;
const CLAIM_VALUES = `?1, ?2, 'submitting', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14`;
const CLAIM_SQL =
  `INSERT INTO settlements ` + `(${CLAIM_COLUMNS}) VALUES (${CLAIM_VALUES}) ON CONFLICT (message_hash) DO NOTHING`;
const CLAIM_WITH_PAYMENT_ID_SQL =
  `INSERT INTO settlements ` + `(${CLAIM_COLUMNS}, payment_id) VALUES (${CLAIM_VALUES}, ?15) ON CONFLICT DO NOTHING`;

/**
 * Gives a claimed row back when the cluster never accepted its transaction (preflight refusal, provisioning
 * fault), so a later call may try the same payment again: only the lease holder's row, never one that was confirmed
 * or reported. The payment's bookings go with it, in the same transaction (`voidBookingsOfUnpaid`).
 */
export async function releaseSettlement(d1: D1Database, messageHash: string, leaseId: string): Promise<void> {
  await d1.batch([
    d1
      .prepare(
        `DELETE FROM settlements WHERE message_hash = ?1 AND lease_id = ?2 AND state IN ('submitting', 'pending') ` +
          `AND success_reported_at_ms IS NULL`,
      )
      .bind(messageHash, leaseId),
    voidBookingsOfUnpaid(d1, messageHash, Date.now()),
  ]);
}

/**
 * The bookings a payment's claim made (the exposure budget's, `settlement_hash`) are voided once the payment can be
 * seen never to have been paid: its row released (the cluster never accepted it) or failed unseen with its blockhash
 * expired. Any other row — sent, pending, confirmed, failed on chain — keeps them: a fee the chain charged stays
 * booked. Runs with every write that can end a payment unpaid (the release, a failure, the ledger objects' mirror).
 */
export function voidBookingsOfUnpaid(d1: D1Database, messageHash: string, nowMs: number): D1PreparedStatement {
  return d1.prepare(VOID_BOOKINGS_OF_UNPAID_SQL).bind(messageHash, nowMs);
}

const VOID_BOOKINGS_OF_UNPAID_SQL =
  `UPDATE fee_payer_exposure SET state = 'voided', updated_at_ms = ?2
  WHERE settlement_hash = ?1 AND state IN ('held', 'spent')
    AND NOT EXISTS (SELECT 1 FROM settlements WHERE message_hash = ?1 AND NOT (state = 'failed' AND error_reason = ` +
  `'blockhash_expired'))`;

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

/**
 * Moves a settlement to its next state, only from the states given (so a late writer cannot undo a final state). A
 * failure the cluster never saw (an expired blockhash) voids the payment's bookings in the same batch.
 */
export async function updateSettlement(
  d1: D1Database,
  messageHash: string,
  fromStates: SettlementState[],
  changes: SettlementChanges,
): Promise<boolean> {
  const nowMs = Date.now();
  const keys = (Object.keys(changes) as (keyof SettlementChanges)[]).filter((key) => changes[key] !== undefined);
  const update = d1
    .prepare(
      `UPDATE settlements SET ${keys.map((key) => `${CHANGE_COLUMNS[key]} = ?, `).join("")}updated_at_ms = ?
       WHERE message_hash = ? AND state IN (${fromStates.map(() => "?").join(", ")})`,
    )
    .bind(...keys.map((key) => changes[key] ?? null), nowMs, messageHash, ...fromStates);
  if (changes.state !== "failed") return ((await update.run()).meta.changes ?? 0) > 0;
  const [updated] = await d1.batch([update, voidBookingsOfUnpaid(d1, messageHash, nowMs)]);
  return (updated?.meta.changes ?? 0) > 0;
}

/** What a ledger update may change. */
export type SettlementChanges = Partial<
  Pick<SettlementRow, "state" | "errorReason" | "errorMessage" | "leaseId" | "leaseExpiresAtMs" | "confirmedAtMs">
>;

/** The columns of SettlementChanges (also the ledger objects' own table's). */
export const CHANGE_COLUMNS: Record<keyof SettlementChanges, string> = {
  state: "state",
  errorReason: "error_reason",
  errorMessage: "error_message",
  leaseId: "lease_id",
  leaseExpiresAtMs: "lease_expires_at_ms",
  confirmedAtMs: "confirmed_at_ms",
};

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
       WHERE message_hash = ?4 AND state IN ('submitting', 'pending') AND (lease_expires_at_ms IS NULL OR ` +
        `lease_expires_at_ms < ?3)`,
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
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), ` +
        `success_reported_at_ms = ?1,
         success_correlation_id = ?2, lease_id = ?4, lease_expires_at_ms = NULL, error_reason = NULL, error_message ` +
        `= NULL, updated_at_ms = ?1
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
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), ` +
        `lease_expires_at_ms = NULL,
         error_reason = NULL, error_message = NULL, updated_at_ms = ?1,
         success_reported_at_ms = CASE WHEN lease_id = ?2 AND success_correlation_id IS NULL THEN NULL ELSE ` +
        `success_reported_at_ms END
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
 * The ledger catching up with the chain (both keepers): fundings and deposits that settle answered pending and the
 * chain shows confirmed are recorded confirmed (not reported: the next /settle of the payment reports success once, as
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
          `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), ` +
            `lease_expires_at_ms = NULL, updated_at_ms = ?1
           WHERE message_hash = ?2 AND state IN ('submitting', 'pending')`,
        )
        .bind(nowMs, hash),
    ),
  );
}
