/**
 * What commits with a payment's ledger claim, in the claim's own D1 transaction (one batch, one round trip): the
 * exposure budget's bookings and a rail's rows (an upto channel, its stored claim, an escrow watch). The claim's
 * ledger row is written only when every rider took, so a booking a cap refuses claims nothing, and nothing is signed
 * or sent for it; riders that took are undone in the same transaction when the row was not written. The statements
 * are plain data: with the ledger's Durable Objects they travel to the object that writes the claim.
 *
 * Statements number their parameters from ?1; the ledger renumbers a guard it embeds in its own statement.
 */

export type SqlValue = string | number | null;

export interface SqlText {
  sql: string;
  binds: SqlValue[];
}

/** One rider's part of the claim's commit. */
export interface ClaimRiderSql {
  /** Written before the ledger row (each guarded by its own caps). */
  writes: SqlText[];
  /** An SQL condition that holds when this rider took (its rows written now or before): the ledger row needs it. */
  holds: SqlText;
  /** Run after the ledger row's insert: undo what this rider wrote when the payment has no ledger row. */
  undo: SqlText[];
  /** Read only when the claim was refused: what the rider's caps saw (each statement's first row, or null). */
  reads: SqlText[];
}

/** A rider and how its refusal reads in words (the settle engine's: `Refusal` is its rejection). */
export interface ClaimRider<Refusal> extends ClaimRiderSql {
  /** The refusal its reads show (`rows`: this rider's, in its `reads` order), or null when it was not this rider's. */
  explain(rows: RefusalRows): Refusal | null;
}

/** The riders of one claim, merged for the ledger (numbers of each guard's parameters made consecutive). */
export interface ClaimRiders {
  writes: SqlText[];
  /** Every rider's `holds`, joined: parameters numbered from ?1. */
  guard: SqlText;
  undo: SqlText[];
  reads: SqlText[];
}

/** What the refusal reads returned, in the riders' order (each statement's first row, or null). */
export type RefusalRows = (Record<string, SqlValue> | null)[];

export function mergeRiders(riders: readonly ClaimRiderSql[]): ClaimRiders {
  const binds: SqlValue[] = [];
  const conditions: string[] = [];
  for (const rider of riders) {
    conditions.push(`(${renumber(rider.holds.sql, binds.length)})`);
    binds.push(...rider.holds.binds);
  }
  return {
    writes: riders.flatMap((r) => r.writes),
    guard: { sql: conditions.length > 0 ? conditions.join(" AND ") : "1", binds },
    undo: riders.flatMap((r) => r.undo),
    reads: riders.flatMap((r) => r.reads),
  };
}

/** `sql` with every `?N` raised by `offset` (our statements carry no `?` inside string literals). */
export function renumber(sql: string, offset: number): string {
  return offset === 0 ? sql : sql.replace(/\?(\d+)/g, (_, n: string) => `?${Number(n) + offset}`);
}

/**
 * The statements of a claim's commit as D1 prepares them, in order: the riders' writes, the row, the guard's verdict
 * (read before anything is undone), the undo, the row as it now is, the riders' refusal reads. The verdict and the
 * reads return a row only when nothing was claimed and no row is there (a refusal, or an id another payment holds).
 */
export function riderStatements(
  d1: D1Database,
  riders: ClaimRiders | undefined,
  claimStatement: D1PreparedStatement,
  rowRead: D1PreparedStatement,
  messageHash: string,
): { statements: D1PreparedStatement[]; rowAt: number } {
  const prepare = (s: SqlText) => d1.prepare(s.sql).bind(...s.binds);
  const unclaimed = (s: SqlText) =>
    d1
      .prepare(
        `SELECT * FROM ` +
          `(${s.sql}) WHERE NOT EXISTS (SELECT 1 FROM settlements WHERE message_hash = ?${s.binds.length + 1})`,
      )
      .bind(...s.binds, messageHash);
  if (!riders) return { statements: [claimStatement, rowRead], rowAt: 1 };
  const verdict = unclaimed({ sql: `SELECT (${riders.guard.sql}) AS held`, binds: riders.guard.binds });
  const statements = [
    ...riders.writes.map(prepare),
    claimStatement,
    verdict,
    ...riders.undo.map(prepare),
    rowRead,
    ...riders.reads.map(unclaimed),
  ];
  return { statements, rowAt: riders.writes.length + 2 + riders.undo.length };
}

/** Where a claim batch's own statements are: the claim's insert, and the row read (riderStatements' order). */
export function claimAt(riders: ClaimRiders | undefined): number {
  return riders?.writes.length ?? 0;
}

/** The guard's verdict and the refusal reads' rows of a claim batch (none when the claim had no riders). */
export function refusalRowsOf(
  results: readonly D1Result[],
  riders: ClaimRiders | undefined,
  rowAt: number,
): { guardHeld: boolean | null; rows: RefusalRows } {
  if (!riders) return { guardHeld: null, rows: [] };
  const first = (r: D1Result | undefined) => (r?.results[0] as Record<string, SqlValue> | undefined) ?? null;
  const verdict = first(results[claimAt(riders) + 1]);
  return {
    guardHeld: verdict === null ? null : Boolean(verdict.held),
    rows: results.slice(rowAt + 1).map(first),
  };
}
