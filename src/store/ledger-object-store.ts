/**
 * The SQL of the settle ledger's Durable Object (src/settlement/settle-ledger-object.ts): its own SQLite table, a copy
 * of D1's `settlements` row for the payments it holds, and the statements by which it writes to D1 (the claim written
 * through, the mirror of every later change, the release). The state machine is the one of store/settlements.ts; here
 * each statement runs on the object's synchronous storage, so each one is atomic with the decision it makes.
 */
import { type ClaimRiders, claimAt, type RefusalRows, refusalRowsOf, renumber, riderStatements } from "./claim-riders";
import {
  CHANGE_COLUMNS,
  type ClaimInput,
  type SettlementChanges,
  type SettlementRow,
  type SettlementState,
  voidBookingsOfUnpaid,
} from "./settlements";

/** The row an object holds: D1's columns, plus how far D1 has caught up with it. */
const LOCAL_TABLE =
  `CREATE TABLE IF NOT EXISTS settlements (
  message_hash TEXT PRIMARY KEY, signature TEXT NOT NULL, state TEXT NOT NULL, scheme TEXT NOT NULL, network TEXT ` +
  `NOT NULL,
  payer TEXT NOT NULL, pay_to TEXT NOT NULL, merchant_wallet TEXT, asset TEXT NOT NULL, amount TEXT NOT NULL,
  last_valid_block_height TEXT, error_reason TEXT, error_message TEXT, lease_id TEXT, lease_expires_at_ms INTEGER,
  max_timeout_seconds INTEGER NOT NULL DEFAULT 60, confirmed_at_ms INTEGER, success_reported_at_ms INTEGER,
  success_correlation_id TEXT, payment_id TEXT, created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL,
  version INTEGER NOT NULL DEFAULT 1, mirrored_version INTEGER NOT NULL DEFAULT 0, ledger_object TEXT)`;
/** The expiry deletes rows oldest first; the mirror's retries look for rows D1 has not caught up with. */
const LOCAL_INDEXES = [
  "CREATE INDEX IF NOT EXISTS settlements_updated_idx ON settlements (updated_at_ms)",
  "CREATE INDEX IF NOT EXISTS settlements_unmirrored_idx ON settlements (message_hash) WHERE mirrored_version < " +
    "version",
];

const COLUMNS = [
  "message_hash",
  "signature",
  "state",
  "scheme",
  "network",
  "payer",
  "pay_to",
  "merchant_wallet",
  "asset",
  "amount",
  "last_valid_block_height",
  "error_reason",
  "error_message",
  "lease_id",
  "lease_expires_at_ms",
  "max_timeout_seconds",
  "confirmed_at_ms",
  "success_reported_at_ms",
  "success_correlation_id",
  "payment_id",
  "created_at_ms",
  "updated_at_ms",
] as const;

/** The statements' column lists, built once per isolate (every settle runs them). */
const COLUMN_LIST = COLUMNS.join(", ");
const PLACEHOLDERS = COLUMNS.map(() => "?").join(", ");
const INSERT_LOCAL_SQL =
  `INSERT INTO settlements ` +
  `(${COLUMN_LIST}, version, mirrored_version, ledger_object) VALUES (${PLACEHOLDERS}, 1, 1, ?)
     ON CONFLICT (message_hash) DO NOTHING`;
const SELECT_D1_ROW_SQL = `SELECT ${COLUMN_LIST}, ledger_object FROM settlements WHERE message_hash = ? LIMIT 1`;

type RawRow = Record<(typeof COLUMNS)[number], SqlStorageValue> & {
  version?: number;
  mirrored_version?: number;
  ledger_object?: string | null;
};

export type { ClaimInput } from "./settlements";

export function createLocalSchema(sql: SqlStorage): void {
  sql.exec(LOCAL_TABLE);
  for (const statement of LOCAL_INDEXES) sql.exec(statement);
}

export function hasLocalSchema(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settlements'").toArray().length > 0;
}

function toRow(raw: RawRow): SettlementRow {
  return {
    messageHash: raw.message_hash as string,
    signature: raw.signature as string,
    state: raw.state as SettlementState,
    scheme: raw.scheme as string,
    network: raw.network as string,
    payer: raw.payer as string,
    payTo: raw.pay_to as string,
    merchantWallet: raw.merchant_wallet as string | null,
    asset: raw.asset as string,
    amount: raw.amount as string,
    lastValidBlockHeight: raw.last_valid_block_height as string | null,
    errorReason: raw.error_reason as string | null,
    errorMessage: raw.error_message as string | null,
    leaseId: raw.lease_id as string | null,
    leaseExpiresAtMs: raw.lease_expires_at_ms as number | null,
    maxTimeoutSeconds: raw.max_timeout_seconds as number,
    confirmedAtMs: raw.confirmed_at_ms as number | null,
    successReportedAtMs: raw.success_reported_at_ms as number | null,
    successCorrelationId: raw.success_correlation_id as string | null,
    paymentId: raw.payment_id as string | null,
    createdAtMs: raw.created_at_ms as number,
    updatedAtMs: raw.updated_at_ms as number,
  };
}

function values(row: SettlementRow): SqlStorageValue[] {
  return [
    row.messageHash,
    row.signature,
    row.state,
    row.scheme,
    row.network,
    row.payer,
    row.payTo,
    row.merchantWallet,
    row.asset,
    row.amount,
    row.lastValidBlockHeight,
    row.errorReason,
    row.errorMessage,
    row.leaseId,
    row.leaseExpiresAtMs,
    row.maxTimeoutSeconds,
    row.confirmedAtMs,
    row.successReportedAtMs,
    row.successCorrelationId,
    row.paymentId,
    row.createdAtMs,
    row.updatedAtMs,
  ];
}

/** The row the claim writes, before any change. */
export function claimedRow(input: ClaimInput, nowMs: number): SettlementRow {
  return {
    ...input,
    state: "submitting",
    errorReason: null,
    errorMessage: null,
    confirmedAtMs: null,
    successReportedAtMs: null,
    successCorrelationId: null,
    paymentId: input.paymentId ?? null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The object's own table

export interface LocalRow {
  row: SettlementRow;
  /** Bumped by every change; D1 has caught up once `mirroredVersion` equals it. */
  version: number;
  mirroredVersion: number;
  /** The object's name as D1's `ledger_object` has it: the mirror writes only rows D1 still gives this object. */
  ledgerObject: string | null;
}

export function readLocal(sql: SqlStorage, messageHash: string): LocalRow | undefined {
  const raw = sql.exec<RawRow>("SELECT * FROM settlements WHERE message_hash = ?", messageHash).toArray()[0];
  return raw
    ? {
        row: toRow(raw),
        version: Number(raw.version),
        mirroredVersion: Number(raw.mirrored_version),
        ledgerObject: raw.ledger_object ?? null,
      }
    : undefined;
}

/** The rows D1 has not caught up with, oldest change first (what the alarm mirrors). */
export function unmirroredMessageHashes(sql: SqlStorage, limit: number): string[] {
  return sql
    .exec<{ message_hash: string }>(
      "SELECT message_hash FROM settlements WHERE mirrored_version < version ORDER BY updated_at_ms LIMIT ?",
      limit,
    )
    .toArray()
    .map((r) => r.message_hash);
}

/** Deletes up to `limit` rows D1 has caught up with and nothing changed since `beforeMs`, oldest first. */
export function deleteExpiredLocal(sql: SqlStorage, beforeMs: number, limit: number): number {
  const cursor = sql.exec(
    `DELETE FROM settlements WHERE message_hash IN (
       SELECT message_hash FROM settlements WHERE updated_at_ms < ? AND mirrored_version >= version ORDER BY ` +
      `updated_at_ms LIMIT ?)`,
    beforeMs,
    limit,
  );
  cursor.toArray();
  return cursor.rowsWritten;
}

/** The oldest change among the rows held (null: none): when the next row expires. */
export function oldestLocalChangeMs(sql: SqlStorage): number | null {
  const oldest = sql.exec<{ at: number | null }>("SELECT MIN(updated_at_ms) AS at FROM settlements").one().at;
  return oldest ?? null;
}

/**
 * Puts a row D1 already has (written through, or found there) unless the object holds one: `mirrored` as it is.
 * `ledgerObject`: this object's name, which D1's row names too.
 */
export function insertLocal(sql: SqlStorage, row: SettlementRow, ledgerObject: string): void {
  sql.exec(INSERT_LOCAL_SQL, ...values(row), ledgerObject);
}

/**
 * store/settlements.ts releaseSettlement, on the object's row: only the lease holder's row of a payment not reported
 * or confirmed. Returns whether it let the row go (false: another call's lease, or the payment moved on).
 */
export function releaseLocal(sql: SqlStorage, messageHash: string, leaseId: string): boolean {
  return changed(
    sql.exec(
      `DELETE FROM settlements WHERE message_hash = ? AND lease_id = ? AND state IN ('submitting', 'pending') AND ` +
        `success_reported_at_ms IS NULL`,
      messageHash,
      leaseId,
    ),
  );
}

function changed(cursor: SqlStorageCursor<Record<string, SqlStorageValue>>): boolean {
  cursor.toArray();
  return cursor.rowsWritten > 0;
}

/** store/settlements.ts updateSettlement, on the object's row. */
export function updateLocal(
  sql: SqlStorage,
  messageHash: string,
  fromStates: SettlementState[],
  changes: SettlementChanges,
  nowMs: number,
): boolean {
  const keys = (Object.keys(changes) as (keyof SettlementChanges)[]).filter((key) => changes[key] !== undefined);
  const sets = keys.map((key) => `${CHANGE_COLUMNS[key]} = ?`).join(", ");
  return changed(
    sql.exec(
      `UPDATE settlements SET ${sets}${sets ? ", " : ""}updated_at_ms = ?, version = version + 1
       WHERE message_hash = ? AND state IN (${fromStates.map(() => "?").join(", ")})`,
      ...keys.map((key) => changes[key] ?? null),
      nowMs,
      messageHash,
      ...fromStates,
    ),
  );
}

/** store/settlements.ts takeOverLease. */
export function takeOverLocalLease(
  sql: SqlStorage,
  messageHash: string,
  leaseId: string,
  leaseMs: number,
  nowMs: number,
): boolean {
  return changed(
    sql.exec(
      `UPDATE settlements SET lease_id = ?1, lease_expires_at_ms = ?2, updated_at_ms = ?3, version = version + 1
       WHERE message_hash = ?4 AND state IN ('submitting', 'pending') AND (lease_expires_at_ms IS NULL OR ` +
        `lease_expires_at_ms < ?3)`,
      leaseId,
      nowMs + leaseMs,
      nowMs,
      messageHash,
    ),
  );
}

/** store/settlements.ts claimSuccessReport: true for exactly one caller. */
export function reportLocalSuccess(
  sql: SqlStorage,
  messageHash: string,
  reporterId: string,
  correlationId: string | null,
  nowMs: number,
): boolean {
  return changed(
    sql.exec(
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), ` +
        `success_reported_at_ms = ?1,
         success_correlation_id = ?2, lease_id = ?4, lease_expires_at_ms = NULL, error_reason = NULL, error_message ` +
        `= NULL,
         updated_at_ms = ?1, version = version + 1
       WHERE message_hash = ?3 AND success_reported_at_ms IS NULL`,
      nowMs,
      correlationId,
      messageHash,
      reporterId,
    ),
  );
}

/** store/settlements.ts recordConfirmationAfterFailedReport. */
export function recordLocalConfirmationAfterFailedReport(
  sql: SqlStorage,
  messageHash: string,
  reporterId: string,
  nowMs: number,
): void {
  sql.exec(
    `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), ` +
      `lease_expires_at_ms = NULL,
       error_reason = NULL, error_message = NULL, updated_at_ms = ?1, version = version + 1,
       success_reported_at_ms = CASE WHEN lease_id = ?2 AND success_correlation_id IS NULL THEN NULL ELSE ` +
      `success_reported_at_ms END
     WHERE message_hash = ?3`,
    nowMs,
    reporterId,
    messageHash,
  );
}

/**
 * How far a payment has come: a row never moves down this order (a failed payment that landed moves up to confirmed).
 */
const STATE_RANK: Record<SettlementState, number> = { submitting: 0, pending: 1, failed: 2, confirmed: 3 };

/**
 * What D1 knows of a payment that the object's row does not: a state further on (the keepers' catch-up,
 * store/settlements.ts recordFundingsConfirmed; or the D1 ledger's calls during a switch of ledgers), or a success
 * report written by the D1 ledger (another reporter than the object's last lease holder: a report of the object's own
 * that it withdrew is not taken back). Null when D1 is not ahead.
 */
export function progressAhead(local: SettlementRow, d1: SettlementRow): Partial<SettlementRow> | null {
  if (local.successReportedAtMs !== null) return null;
  const foreignReport = d1.successReportedAtMs !== null && d1.leaseId !== local.leaseId;
  const stateAhead = STATE_RANK[d1.state] > STATE_RANK[local.state];
  if (!foreignReport && !stateAhead) return null;
  return {
    state: foreignReport ? "confirmed" : d1.state,
    confirmedAtMs: d1.confirmedAtMs,
    errorReason: d1.errorReason,
    errorMessage: d1.errorMessage,
    ...(foreignReport
      ? {
          successReportedAtMs: d1.successReportedAtMs,
          successCorrelationId: d1.successCorrelationId,
          leaseId: d1.leaseId,
        }
      : {}),
  };
}

/** Takes D1's progress (`progressAhead`) into the object's row, unless a report was recorded here meanwhile. */
export function adoptProgress(
  sql: SqlStorage,
  messageHash: string,
  ahead: Partial<SettlementRow>,
  nowMs: number,
): boolean {
  return changed(
    sql.exec(
      `UPDATE settlements SET state = ?2, confirmed_at_ms = COALESCE(confirmed_at_ms, ?3), error_reason = ?4, ` +
        `error_message = ?5,
         success_reported_at_ms = ?6, success_correlation_id = ?7, lease_id = COALESCE(?8, lease_id), ` +
        `lease_expires_at_ms = NULL,
         updated_at_ms = ?9, version = version + 1
       WHERE message_hash = ?1 AND success_reported_at_ms IS NULL`,
      messageHash,
      ahead.state ?? null,
      ahead.confirmedAtMs ?? null,
      ahead.errorReason ?? null,
      ahead.errorMessage ?? null,
      ahead.successReportedAtMs ?? null,
      ahead.successCorrelationId ?? null,
      ahead.leaseId ?? null,
      nowMs,
    ),
  );
}

export function markMirrored(sql: SqlStorage, messageHash: string, version: number): void {
  sql.exec(
    "UPDATE settlements SET mirrored_version = ?1 WHERE message_hash = ?2 AND mirrored_version < ?1",
    version,
    messageHash,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// D1: what the object writes there

const D1_CLAIM_COLUMNS =
  `message_hash, signature, state, scheme, network, payer, pay_to, merchant_wallet, asset, ` +
  `amount, last_valid_block_height,
  lease_id, lease_expires_at_ms, max_timeout_seconds, created_at_ms, updated_at_ms, payment_id`;

/**
 * D1's row of a payment, and the ledger object it names (null: the D1 ledger's row, or one from before objects named
 * it).
 */
export interface D1LedgerRow {
  row: SettlementRow;
  ledgerObject: string | null;
}

/**
 * The claim, written through to D1 in one round trip with the read of the row D1 holds for the payment: the insert
 * makes the row exist in D1 before the object holds it (D1 never lacks a payment the object has) and names the object
 * (`ledgerObject`), and the read finds a row D1 had already (another object's claim, the D1 ledger's row, a row this
 * object expired). Without a conflict target, DO NOTHING also covers the (pay_to, payment_id) unique index, as in
 * store/settlements.ts. `riders` commit in the same batch (store/claim-riders.ts): the row is inserted only where every
 * rider took, and `refused` carries their figures when one did not.
 */
export async function writeClaimThrough(
  d1: D1Database,
  row: SettlementRow,
  ledgerObject: string,
  riders?: ClaimRiders,
): Promise<{ inserted: boolean; existing: D1LedgerRow | undefined; refused?: RefusalRows }> {
  const claim = d1
    .prepare(
      `INSERT INTO settlements ` +
        `(${D1_CLAIM_COLUMNS}, ledger_object) SELECT ?1, ?2, 'submitting', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ` +
        `?12, ?13, ?14, ?14, ?15, ?16
       WHERE ${riders ? renumber(riders.guard.sql, 16) : "1"} ON CONFLICT DO NOTHING`,
    )
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
      row.createdAtMs,
      row.paymentId,
      ledgerObject,
      ...(riders?.guard.binds ?? []),
    );
  const { statements, rowAt } = riderStatements(
    d1,
    riders,
    claim,
    d1.prepare(SELECT_D1_ROW_SQL).bind(row.messageHash),
    row.messageHash,
  );
  const results = await d1.batch(statements);
  const raw = (results[rowAt]?.results as RawRow[] | undefined)?.[0];
  const refusal = refusalRowsOf(results, riders, rowAt);
  return {
    inserted: (results[claimAt(riders)]?.meta.changes ?? 0) > 0,
    existing: raw ? { row: toRow(raw), ledgerObject: raw.ledger_object ?? null } : undefined,
    ...(refusal.guardHeld === false ? { refused: refusal.rows } : {}),
  };
}

/**
 * Takes a row no object holds (the D1 ledger's, during a switch of ledgers) for `ledgerObject`: true for exactly one
 * object, which then holds it; any other is sent there.
 */
export async function takeOverD1Row(d1: D1Database, messageHash: string, ledgerObject: string): Promise<boolean> {
  const result = await d1
    .prepare("UPDATE settlements SET ledger_object = ?1 WHERE message_hash = ?2 AND ledger_object IS NULL")
    .bind(ledgerObject, messageHash)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * The payment holding a payment-identifier id for a payTo (read only when a claim's insert found another row in the
 * way).
 */
export async function paymentIdHolder(d1: D1Database, payTo: string, paymentId: string): Promise<string | undefined> {
  const holder = await d1
    .prepare("SELECT message_hash FROM settlements WHERE pay_to = ? AND payment_id = ? LIMIT 1")
    .bind(payTo, paymentId)
    .first<{ message_hash: string }>();
  return holder?.message_hash;
}

/** D1's row of a payment the object does not hold (another object's, the D1 ledger's, or expired here). */
export async function readD1Row(d1: D1Database, messageHash: string): Promise<D1LedgerRow | undefined> {
  const raw = await d1.prepare(SELECT_D1_ROW_SQL).bind(messageHash).first<RawRow>();
  return raw ? { row: toRow(raw), ledgerObject: raw.ledger_object ?? null } : undefined;
}

/**
 * The mirror: D1's row becomes the object's, except where D1 knows more. A confirmation D1 learned elsewhere (the
 * keepers' catch-up, store/settlements.ts recordFundingsConfirmed) is never undone by an older or failed state of the
 * object's (the object takes it on the payment's next claim: `progressAhead`), and a success report the D1 ledger wrote
 * (another reporter than the object's last lease holder) is never erased by a row that has none.
 *
 * It only updates, and only a row D1 still gives this object (`ledgerObject`): a row released meanwhile (an attempt the
 * cluster never accepted) is not brought back, and a row another object claimed after that is not overwritten. False
 * when D1 had no such row to update.
 */
export async function mirrorToD1(d1: D1Database, row: SettlementRow, ledgerObject: string | null): Promise<boolean> {
  const [written] = await mirrorRowsToD1(d1, [{ row, ledgerObject }]);
  return written!;
}

/**
 * `mirrorToD1` of several rows in one D1 transaction (one round trip, one commit): whether each row was written, in
 * order. All or none: a batch D1 refuses writes no row.
 */
export async function mirrorRowsToD1(
  d1: D1Database,
  rows: readonly { row: SettlementRow; ledgerObject: string | null }[],
): Promise<boolean[]> {
  mirrorStatement ??= mirrorSql();
  const nowMs = Date.now();
  const statements: D1PreparedStatement[] = [];
  const mirrorAt: number[] = [];
  for (const { row, ledgerObject } of rows) {
    mirrorAt.push(statements.length);
    statements.push(d1.prepare(mirrorStatement).bind(...values(row), ledgerObject));
    // A payment that ended unpaid (failed unseen, its blockhash expired) takes its bookings with it, in the same batch.
    if (row.state === "failed") statements.push(voidBookingsOfUnpaid(d1, row.messageHash, nowMs));
  }
  const results = statements.length === 1 ? [await statements[0]!.run()] : await d1.batch(statements);
  return mirrorAt.map((at) => (results[at]?.meta.changes ?? 0) > 0);
}

/** The mirror's statement, the same for every row (built once per isolate). */
let mirrorStatement: string | undefined;

function mirrorSql(): string {
  // ?1 … ?22 are the object's columns in COLUMNS order, ?23 the object's name; bare column names are D1's current row.
  const param = (column: (typeof COLUMNS)[number]) => `?${COLUMNS.indexOf(column) + 1}`;
  const keepReport =
    `(success_reported_at_ms IS NOT NULL ` +
    `AND ${param("success_reported_at_ms")} IS NULL AND lease_id IS NOT ${param("lease_id")})`;
  const keepConfirmed = `(state = 'confirmed' AND ${param("state")} <> 'confirmed')`;
  const special: Partial<Record<(typeof COLUMNS)[number], string>> = {
    state: `CASE WHEN ${keepConfirmed} THEN 'confirmed' ELSE ${param("state")} END`,
    confirmed_at_ms: `COALESCE(${param("confirmed_at_ms")}, confirmed_at_ms)`,
    error_reason: `CASE WHEN ${keepConfirmed} THEN error_reason ELSE ${param("error_reason")} END`,
    error_message: `CASE WHEN ${keepConfirmed} THEN error_message ELSE ${param("error_message")} END`,
    success_reported_at_ms:
      `CASE ` + `WHEN ${keepReport} THEN success_reported_at_ms ELSE ${param("success_reported_at_ms")} END`,
    success_correlation_id:
      `CASE ` + `WHEN ${keepReport} THEN success_correlation_id ELSE ${param("success_correlation_id")} END`,
    lease_id: `CASE WHEN ${keepReport} THEN lease_id ELSE ${param("lease_id")} END`,
  };
  const updates = COLUMNS.filter((c) => c !== "message_hash").map((c) => `${c} = ${special[c] ?? param(c)}`);
  return (
    `UPDATE settlements ` +
    `SET ${updates.join(", ")} WHERE message_hash = ?1 AND ledger_object IS ?${COLUMNS.length + 1}`
  );
}

/**
 * A failed payment the chain shows confirmed after all, written to D1 before the object records it: D1 never says
 * "failed" (an Open that never landed, to the upto rail: store/upto-channels.ts) for a payment the object has
 * confirmed.
 */
export async function writeConfirmationThrough(d1: D1Database, messageHash: string, nowMs: number): Promise<void> {
  await d1
    .prepare(
      `UPDATE settlements SET state = 'confirmed', confirmed_at_ms = COALESCE(confirmed_at_ms, ?1), error_reason = ` +
        `NULL, error_message = NULL,
         lease_expires_at_ms = NULL, updated_at_ms = ?1 WHERE message_hash = ?2 AND state = 'failed'`,
    )
    .bind(nowMs, messageHash)
    .run();
}

/**
 * store/settlements.ts releaseSettlement, on D1, after the object let its own row go under the lease: D1's row of this
 * object (never another's), and the payment's bookings with it.
 */
export async function releaseInD1(d1: D1Database, messageHash: string, ledgerObject: string): Promise<void> {
  await d1.batch([
    d1
      .prepare(
        `DELETE FROM settlements WHERE message_hash = ?1 AND ledger_object = ?2 AND state IN ('submitting', ` +
          `'pending') AND success_reported_at_ms IS NULL`,
      )
      .bind(messageHash, ledgerObject),
    voidBookingsOfUnpaid(d1, messageHash, Date.now()),
  ]);
}
