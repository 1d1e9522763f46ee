/**
 * The SQL of the fee payer's exposure budget (migration 0011; the rules are in src/chain/fee-payer-budget/). Two places
 * hold what the fee payer has out:
 * - rent a rail keeps on its own rows (`RailRentRows`, the rail's port: e.g. a payment channel's rent on the channel's
 *   row) counts while the rail's condition says it is out; whatever ends the row returns it to the budget;
 * - every other spend is one `fee_payer_exposure` row: `held` (rent expected back) until returned or voided, `spent`
 *   (gone for good) counted for 24 h.
 * A booking and its caps are one statement (or one batch, which D1 runs as one transaction), so two concurrent
 * bookings can never both pass a cap. A rail that books rent on its own rows writes them under these caps itself,
 * with `rentOutFor` and `totalRentOut` below, so this core file names no rail.
 */

import type { RailRentRows } from "./rail-rent-rows";
import { EXPOSURE_STATES, type ExposureEnd, type ExposureState, LIVE_EXPOSURE_STATES, oneOf } from "./states";

/** fee_payer_exposure states (src/store/states.ts), named once for the SQL below. */
const [HELD, SPENT, , VOIDED] = EXPOSURE_STATES;
/** A booking that counts against the caps: held or spent. */
const LIVE_BOOKING = oneOf("state", LIVE_EXPOSURE_STATES);

/** SQLite integers are signed 64-bit: a limit above this (an operator's "no cap") is this. */
const SQL_INTEGER_MAX = (1n << 62n) - 1n;

/** A booking's lamports as D1 binds them (a JavaScript number: far below 2^53 for any one spend). */
export function sqlLamports(lamports: bigint): number {
  if (lamports < 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`lamports ${lamports} out of range`);
  return Number(lamports);
}

/** An integer limit as an SQL literal (caps come from the validated config, never from a caller). */
export function literal(value: bigint | number): string {
  const n = BigInt(value);
  return (n > SQL_INTEGER_MAX ? SQL_INTEGER_MAX : n < 0n ? 0n : n).toString();
}

/**
 * A limit that changes per call (the share of the balance) as a bind; beyond 2^53 lamports (9 million SOL) it is no
 * limit.
 */
export function sqlLimit(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

// ---------------------------------------------------------------------------------------------------------------
// What is out, per buyer wallet, per payTo and in total

/**
 * Rent out for `column` = `param` (an SQL value: a parameter such as ?4), as an SQL expression: every rail's rows whose
 * rent is out, and the held bookings.
 */
export function rentOutFor(railRent: readonly RailRentRows[], column: "payer" | "pay_to", param: string): string {
  return sumOfRentOut(railRent, `${column} = ${param} AND `);
}

/** All rent out, as an SQL expression. */
export function totalRentOut(railRent: readonly RailRentRows[]): string {
  return sumOfRentOut(railRent, "");
}

function sumOfRentOut(railRent: readonly RailRentRows[], where: string): string {
  const rails = railRent.map(
    (r) => `(SELECT COALESCE(SUM(${r.lamportsColumn}), 0) FROM ${r.table} WHERE ${where}${r.outWhere})`,
  );
  const held = `(SELECT COALESCE(SUM(lamports), 0) FROM fee_payer_exposure WHERE ${where}state = '${HELD}')`;
  return `(${[...rails, held].join("\n    + ")})`;
}

/** Every rail's rows whose rent is out, as rows of `columns` and `lamports`, then the held bookings'. */
function rentOutRows(railRent: readonly RailRentRows[], columns: string): string {
  return [
    ...railRent.map((r) => `SELECT ${columns}, ${r.lamportsColumn} AS lamports FROM ${r.table} WHERE ${r.outWhere}`),
    `SELECT ${columns}, lamports FROM fee_payer_exposure WHERE state = '${HELD}'`,
  ].join("\n    UNION ALL ");
}

/**
 * The largest `measure` of any one value of `column` over `rows` (an SQL query), as a one-column query (`n`): the
 * tightest wallet of a cap, for /health.
 */
export function largestOfOne(rows: string, column: string, measure: string): string {
  return (
    `SELECT COALESCE(MAX(n), 0) AS n FROM ` +
    `(SELECT ${measure} AS n FROM (${rows}) WHERE ${column} IS NOT NULL GROUP BY ${column})`
  );
}

/**
 * Lamports spent for good by a scope of fee_payer_spend_hours (`pool:<pool>`, `seller:<wallet>`; SQL values) since
 * `since`, counted by the hour (the hour holding `since` whole): the triggers of migration 0018 keep the hours, so the
 * sum reads a day's hours, never a day's bookings.
 */
export function spentHoursSince(since: string, scope: string): string {
  return (
    `(SELECT COALESCE(SUM(lamports), 0) FROM fee_payer_spend_hours WHERE scope ` +
    `= ${scope} AND hour_ms >= ${since} - ${since} % ${HOUR_MS})`
  );
}

const HOUR_MS = 3_600_000;
/** The operator's jobs' pool, as a scope of fee_payer_spend_hours. */
const JOBS_SCOPE = "'pool:jobs'";

// ---------------------------------------------------------------------------------------------------------------
// Every other spend: one fee_payer_exposure row

export interface ExposureRow {
  bookingId: string;
  rail: string;
  kind: string;
  payer: string | null;
  payTo: string | null;
  lamports: bigint;
  /** held: rent expected back; spent: gone for good. */
  state: Extract<ExposureState, "held" | "spent">;
  /** The fee payer that fronts or spends the lamports (with key rotation, one of several). */
  feePayer: string;
}

/** The caps a held booking is checked against (rent out). */
export interface HeldLimits {
  rentPerPayerLamports: bigint;
  rentPerPayToLamports: bigint;
  totalRentLamports: bigint;
}

/**
 * The cap a spent booking of the operator's jobs is checked against: the jobs' pool, lamports spent since `sinceMs` (a
 * rolling day).
 */
export interface SpentLimits {
  sinceMs: number;
  spendTotalLamports: bigint;
}

export interface ExposureFigures {
  payerLamports: bigint;
  payToLamports: bigint;
  totalLamports: bigint;
}

/**
 * Books one spend of the operator's own work (pool `jobs`) if its cap holds: inserted, or revived when the same
 * booking was voided. A booking already live is kept as it is (`booked` true: the same spend books once). A held
 * booking (rent out) is checked against the rent caps per wallet (a payer or payTo of null is not capped on that side)
 * and in total; a spent one against the jobs' daily pool only: its payer and payTo are recorded, never capped (no
 * buyer's traffic can stop a job). One batch: the conditional write, then the figures the caps saw and the row's state.
 * `railRent`: the rails' rent rows, counted with the held bookings.
 */
export async function bookExposureWithinCaps(
  d1: D1Database,
  row: ExposureRow,
  limits: HeldLimits | SpentLimits,
  nowMs: number,
  railRent: readonly RailRentRows[],
): Promise<{ booked: boolean; figures: ExposureFigures }> {
  const spent = "sinceMs" in limits;
  const figuresSql = (payer: string, payTo: string, since: string) =>
    spent
      ? { payer: "0", payTo: "0", total: spentHoursSince(since, JOBS_SCOPE) }
      : {
          payer: rentOutFor(railRent, "payer", payer),
          payTo: rentOutFor(railRent, "pay_to", payTo),
          total: totalRentOut(railRent),
        };
  // ?9 the total's limit; ?10 (spent only) the start of the day counted.
  const f = figuresSql("?4", "?5", "?10");
  const withinCaps = spent
    ? `${f.total} + ?6 <= ?9`
    : `(?4 IS NULL OR ${f.payer} + ?6 <= ${literal(limits.rentPerPayerLamports)})
    AND (?5 IS NULL OR ${f.payTo} + ?6 <= ${literal(limits.rentPerPayToLamports)})
    AND ${f.total} + ?6 <= ?9`;
  const totalMax = spent ? limits.spendTotalLamports : limits.totalRentLamports;
  const seen = figuresSql("?2", "?3", "?4");
  const since = spent ? [limits.sinceMs] : [];
  const [written, read] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO fee_payer_exposure (booking_id, rail, kind, payer, pay_to, lamports, state, booked_at_ms, ` +
          `updated_at_ms, fee_payer, pool)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?11, 'jobs'
         WHERE EXISTS (SELECT 1 FROM fee_payer_exposure WHERE booking_id = ?1 AND state <> ` +
          `'${VOIDED}') OR (${withinCaps})
         ON CONFLICT (booking_id) DO UPDATE SET state = excluded.state, lamports = excluded.lamports, booked_at_ms = ` +
          `excluded.booked_at_ms,
           updated_at_ms = excluded.updated_at_ms, fee_payer = excluded.fee_payer
         WHERE fee_payer_exposure.state = '${VOIDED}'`,
      )
      // ?10 is the spent window's start (bound only for a spent booking); an unbound parameter reads as NULL.
      .bind(
        row.bookingId,
        row.rail,
        row.kind,
        row.payer,
        row.payTo,
        sqlLamports(row.lamports),
        row.state,
        nowMs,
        sqlLimit(totalMax),
        since[0] ?? null,
        row.feePayer,
      ),
    d1
      .prepare(
        `SELECT ${seen.payer} AS payerLamports, ${seen.payTo} AS payToLamports, ${seen.total} AS totalLamports,
           (SELECT state FROM fee_payer_exposure WHERE booking_id = ?1) AS state`,
      )
      .bind(row.bookingId, row.payer, row.payTo, ...since),
  ]);
  const figures = read!.results[0] as Record<string, number | string | null>;
  const state = figures.state;
  return {
    booked: (written!.meta.changes ?? 0) > 0 || (state !== null && state !== VOIDED),
    figures: {
      payerLamports: BigInt(figures.payerLamports ?? 0),
      payToLamports: BigInt(figures.payToLamports ?? 0),
      totalLamports: BigInt(figures.totalLamports ?? 0),
    },
  };
}

/**
 * Ends a booking: `returned` (held rent came back), `spent` (held rent is gone for good: it now counts against the
 * daily caps from this moment), `voided` (the spend never happened). Only a live booking moves. Returns whether it did.
 */
export async function settleExposureRow(
  d1: D1Database,
  bookingId: string,
  outcome: ExposureEnd,
  nowMs: number,
): Promise<boolean> {
  const from: readonly ExposureState[] = outcome === VOIDED ? LIVE_EXPOSURE_STATES : [HELD];
  const result = await d1
    .prepare(
      `UPDATE fee_payer_exposure SET state = ?2, updated_at_ms = ?3, booked_at_ms = CASE WHEN ?2 = ` +
        `'${SPENT}' THEN ?3 ELSE booked_at_ms END
       WHERE booking_id = ?1 AND ${oneOf("state", from)}`,
    )
    .bind(bookingId, outcome, nowMs)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** What the operator's jobs spent since `sinceMs` (what a job's booking would see), without writing: one query. */
export async function readJobsSpent(d1: D1Database, sinceMs: number): Promise<bigint> {
  const row = await d1
    .prepare(`SELECT ${spentHoursSince("?1", JOBS_SCOPE)} AS lamports`)
    .bind(sinceMs)
    .first<{ lamports: number | null }>();
  return BigInt(row?.lamports ?? 0);
}

/** Which of `bookingIds` are live (held or spent): one query. */
export async function liveExposureBookings(d1: D1Database, bookingIds: readonly string[]): Promise<Set<string>> {
  if (bookingIds.length === 0) return new Set();
  const { results } = await d1
    .prepare(
      `SELECT booking_id AS id FROM fee_payer_exposure ` +
        `WHERE ${LIVE_BOOKING} AND booking_id IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(bookingIds))
    .all<{ id: string }>();
  return new Set(results.map((r) => r.id));
}

/** Lowers a live booking's lamports to `lamports` (never raises it). Returns whether it changed. */
export async function trimExposureRow(
  d1: D1Database,
  bookingId: string,
  lamports: bigint,
  nowMs: number,
): Promise<boolean> {
  const result = await d1
    .prepare(
      `UPDATE fee_payer_exposure SET lamports = ?2, updated_at_ms = ?3 WHERE booking_id = ?1 ` +
        `AND ${LIVE_BOOKING} AND lamports > ?2`,
    )
    .bind(bookingId, sqlLamports(lamports), nowMs)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------------------------
// /health

/** What the fee payer has out and has spent, and each cap's tightest user (the largest figure of any one wallet). */
export interface ExposureSummary {
  /** Rent out per rail (a rail's own rent rows under its name, the held bookings under theirs). */
  rentOutByRail: Record<string, bigint>;
  spentSinceByRail: Record<string, bigint>;
  /** Spent since, per pool (buyers, sellers, jobs). */
  spentSinceByPool: Record<string, bigint>;
  /** The same per fee payer that fronted or spent it (UNRECORDED_FEE_PAYER: rows written before migration 0013). */
  rentOutByFeePayer: Record<string, bigint>;
  spentSinceByFeePayer: Record<string, bigint>;
  largest: {
    rentOfOnePayer: bigint;
    rentOfOnePayTo: bigint;
    /** What one buyer's payments cost (both buyer pools). */
    spentByOnePayer: bigint;
    /** What payments to one payTo of the strangers' pool cost; and to one proven seller, out of its quota. */
    spentForOnePayTo: bigint;
    spentForOneProvenSeller: bigint;
  };
  /** The row of each of `railFigures`' queries, in their order. */
  railFigures: Record<string, number | string | null>[];
}

/** The fee payer of rows written before migration 0013 recorded it (the key in use then). */
export const UNRECORDED_FEE_PAYER = "unrecorded";

/**
 * One batch of small aggregates over the live rows (bounded by the caps themselves) and the last day's spent rows;
 * `railFigures`: rails' own queries of one row each (their caps' figures), read in the same batch.
 */
export async function readExposureSummary(
  d1: D1Database,
  railRent: readonly RailRentRows[],
  spentSinceMs: number,
  railFigures: readonly string[],
): Promise<ExposureSummary> {
  const since = literal(spentSinceMs); // /health: not a hot path, the statements may differ per call
  const rentRows = rentOutRows(railRent, "payer, pay_to");
  const spentIn = (pools: string) =>
    `SELECT payer, pay_to, lamports FROM fee_payer_exposure WHERE state = ` +
    `'${SPENT}' AND booked_at_ms >= ${since} AND pool IN (${pools})`;
  const statements = [
    [
      ...railRent.map(
        (r) =>
          `SELECT '${r.rail}' AS rail, COALESCE(SUM(${r.lamportsColumn}), 0) AS lamports FROM ${r.table} ` +
          `WHERE ${r.outWhere}`,
      ),
      `SELECT rail, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = '${HELD}' GROUP BY rail`,
    ].join("\n     UNION ALL "),
    `SELECT rail, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = ` +
      `'${SPENT}' AND booked_at_ms >= ${since} GROUP BY rail`,
    `SELECT fee_payer, SUM(lamports) AS lamports FROM (${rentOutRows(railRent, "fee_payer")}) GROUP BY fee_payer`,
    `SELECT fee_payer, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = ` +
      `'${SPENT}' AND booked_at_ms >= ${since} GROUP BY fee_payer`,
    `SELECT pool, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = ` +
      `'${SPENT}' AND booked_at_ms >= ${since} GROUP BY pool`,
    largestOfOne(rentRows, "payer", "SUM(lamports)"),
    largestOfOne(rentRows, "pay_to", "SUM(lamports)"),
    largestOfOne(spentIn("'buyers', 'sellers'"), "payer", "SUM(lamports)"),
    largestOfOne(spentIn("'buyers'"), "pay_to", "SUM(lamports)"),
    largestOfOne(spentIn("'sellers'"), "pay_to", "SUM(lamports)"),
    ...railFigures,
  ];
  const results = await d1.batch(statements.map((sql) => d1.prepare(sql)));
  const [out, spent, outByFeePayer, spentByFeePayer, spentByPool, ...rest] = results.map(
    (r) => r.results as Record<string, number | string | null>[],
  );
  const maxima = rest.slice(0, 5);
  const big = (i: number) => BigInt(maxima[i]![0]!.n ?? 0);
  const sumBy = (
    rows: Record<string, number | string | null>[],
    keyOf: (r: Record<string, number | string | null>) => string,
  ) => {
    const sums: Record<string, bigint> = {};
    for (const r of rows) sums[keyOf(r)] = (sums[keyOf(r)] ?? 0n) + BigInt(r.lamports ?? 0);
    return sums;
  };
  const rail = (r: Record<string, number | string | null>) => String(r.rail);
  const feePayer = (r: Record<string, number | string | null>) =>
    r.fee_payer === null ? UNRECORDED_FEE_PAYER : String(r.fee_payer);
  return {
    rentOutByRail: sumBy(out!, rail),
    spentSinceByRail: sumBy(spent!, rail),
    rentOutByFeePayer: sumBy(outByFeePayer!, feePayer),
    spentSinceByFeePayer: sumBy(spentByFeePayer!, feePayer),
    spentSinceByPool: sumBy(spentByPool!, (r) => String(r.pool)),
    largest: {
      rentOfOnePayer: big(0),
      rentOfOnePayTo: big(1),
      spentByOnePayer: big(2),
      spentForOnePayTo: big(3),
      spentForOneProvenSeller: big(4),
    },
    railFigures: rest.slice(5).map((rows) => rows[0] ?? {}),
  };
}
