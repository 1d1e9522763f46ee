import { getTableName } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { KEEPER_ROW_STATES, type KeeperLookOutcome, type KeeperRowState, oneOf } from "./states";

/**
 * The queue both keepers (escrow payouts, upto channel closes) work from: a run claims its due rows (one conditional
 * UPDATE, so two runs never act on one row while the claim lasts) and at its end writes each row's new state in one
 * batch, only where its claim still holds the row; retention deletes finished rows. The tables differ only in their
 * column names.
 */

/**
 * What a keeper run decided for one watched row. State open: look again at nextCheckAtMs; closed: nothing left to do
 * (paid out, or the account is gone); dropped: not a funding this facilitator settled (never landed, failed, or not in
 * its ledger); stuck: gave up after the attempt cap.
 */
export interface KeeperOutcome {
  state: KeeperRowState;
  nextCheckAtMs: number;
  /** Consecutive checks without progress, after this one. */
  failures: number;
  /** The step's name, a value of the rail's set of keeper actions ("none" without one). */
  action: string;
  signature: string | null;
  /** What the look did (last_outcome), and in words (last_detail). */
  outcome: KeeperLookOutcome;
  detail: string;
  /** A sent transaction keeps the claim until it expires, so no other run re-sends before the chain has answered. */
  keepClaim: boolean;
}

/** A keeper's watch table: identifiers read from the drizzle schema (`keeperTableOf`), never caller input. */
export interface KeeperTable {
  table: string;
  keyColumn: string;
  claimColumn: string;
  claimExpiresColumn: string;
  /** The states retention deletes; default every state but open, and upto's voided opens (FINISHED_STATES). */
  finishedStates?: readonly string[];
}

/**
 * The watch table `table` with its key and claim columns, named from the schema objects themselves, so a renamed
 * column is a type error here rather than SQL that fails at run time. Every watch table also has `state`
 * (KEEPER_ROW_STATES), `next_check_at_ms`, `failures`, `last_action` (the rail's keeper actions), `last_signature`,
 * `last_outcome` (KEEPER_LOOK_OUTCOMES), `last_detail` and `updated_at_ms`.
 */
export function keeperTableOf<T extends SQLiteTable>(
  table: T,
  columns: { key: SQLiteColumn; claim: SQLiteColumn; claimExpires: SQLiteColumn },
  options: { finishedStates?: readonly string[] } = {},
): KeeperTable {
  return {
    table: getTableName(table),
    keyColumn: columns.key.name,
    claimColumn: columns.claim.name,
    claimExpiresColumn: columns.claimExpires.name,
    ...(options.finishedStates ? { finishedStates: options.finishedStates } : {}),
  };
}

/** Rows a keeper has finished with (retention deletes them): every state but open, and upto's voided opens. */
const FINISHED_STATES = [...KEEPER_ROW_STATES.filter((state) => state !== "open"), "voided"] as const;
const OPEN: KeeperRowState = "open";

/**
 * The keys of up to ?2 open rows due at ?1 and not held by a live claim. Rows that never failed come first, so a row
 * that cannot progress never takes a slot from one that can; each half is a range scan of the table's due index
 * (state, failures, next_check_at_ms), however many rows wait for a later deadline.
 */
export function dueKeysSql(where: KeeperTable): string {
  const { table, keyColumn, claimExpiresColumn } = where;
  const due = (failures: string) =>
    `SELECT ${keyColumn}, next_check_at_ms FROM ${table}
      WHERE state = ` +
    `'${OPEN}' ` +
    `AND ${failures} AND next_check_at_ms <= ?1 AND (${claimExpiresColumn} IS NULL OR ${claimExpiresColumn} <= ?1)
      ORDER BY next_check_at_ms LIMIT ?2`;
  return `SELECT ${keyColumn} FROM (
    SELECT ${keyColumn}, 0 AS tier, next_check_at_ms FROM (${due("failures = 0")})
    UNION ALL
    SELECT ${keyColumn}, 1 AS tier, next_check_at_ms FROM (${due("failures > 0")})
    ORDER BY tier, next_check_at_ms LIMIT ?2)`;
}

/**
 * Claims up to `limit` due rows for `claimMs` and reads them back with `selectClaimed` (?1 = the claim id), in one D1
 * round trip (a batch runs as one transaction). `before`: a rail's own upkeep of its queue, run first in the same
 * batch.
 */
export async function claimDueRows<Row>(
  d1: D1Database,
  where: KeeperTable,
  selectClaimed: string,
  claimId: string,
  nowMs: number,
  claimMs: number,
  limit: number,
  before: readonly D1PreparedStatement[] = [],
): Promise<Row[]> {
  const { table, keyColumn, claimColumn, claimExpiresColumn } = where;
  const results = await d1.batch([
    ...before,
    d1
      .prepare(
        `UPDATE ${table} SET ${claimColumn} = ?3, ${claimExpiresColumn} = ?4, updated_at_ms = ?1
         ` +
          `WHERE ${keyColumn} IN ` +
          `(${dueKeysSql(where)}) AND (${claimExpiresColumn} IS NULL OR ${claimExpiresColumn} <= ?1)`,
      )
      .bind(nowMs, limit, claimId, nowMs + claimMs),
    d1.prepare(selectClaimed).bind(claimId),
  ]);
  return results.at(-1)!.results as Row[];
}

export async function recordKeeperOutcomes(
  d1: D1Database,
  where: KeeperTable,
  claimId: string,
  outcomes: readonly (KeeperOutcome & { key: string })[],
  nowMs: number,
): Promise<void> {
  if (outcomes.length === 0) return;
  const { table, keyColumn, claimColumn, claimExpiresColumn } = where;
  const update = d1.prepare(
    `UPDATE ${table} SET state = ?1, next_check_at_ms = ?2, failures = ?3, last_action = ?4, last_signature = ` +
      `COALESCE(?5, last_signature),
       last_outcome = ?6, last_detail = ?11, updated_at_ms = ?7,
       ${claimColumn} = CASE WHEN ?8 THEN ${claimColumn} ELSE NULL END,
       ${claimExpiresColumn} = CASE WHEN ?8 THEN ${claimExpiresColumn} ELSE NULL END
     WHERE ${keyColumn} = ?9 AND ${claimColumn} = ?10`,
  );
  await d1.batch(
    outcomes.map((o) =>
      update.bind(
        o.state,
        o.nextCheckAtMs,
        o.failures,
        o.action,
        o.signature,
        o.outcome,
        nowMs,
        o.keepClaim ? 1 : 0,
        o.key,
        claimId,
        o.detail,
      ),
    ),
  );
}

/**
 * Retention: deletes finished rows (closed, dropped, stuck; upto's voided opens) last touched before `beforeMs`, oldest
 * first.
 */
export async function purgeFinishedRowsBefore(
  d1: D1Database,
  where: KeeperTable,
  beforeMs: number,
  batchSize: number,
): Promise<number> {
  const { table, keyColumn, finishedStates = FINISHED_STATES } = where;
  const result = await d1
    .prepare(
      `DELETE FROM ${table} WHERE ${keyColumn} IN (
         ` +
        `SELECT ${keyColumn} FROM ${table} WHERE ${oneOf("state", finishedStates)} AND updated_at_ms < ?1 ORDER BY ` +
        `updated_at_ms LIMIT ?2)`,
    )
    .bind(beforeMs, batchSize)
    .run();
  return result.meta.changes ?? 0;
}
