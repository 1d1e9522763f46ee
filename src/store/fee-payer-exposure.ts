/**
 * The SQL of the fee payer's exposure budget (migration 0011; the rules are in src/chain/fee-payer-budget/). Two places
 * hold what the fee payer has out:
 * - an upto channel's rent sits on the channel's own row (`upto_channels.rent_lamports`) and counts while the row is
 * live (`opening` or `open`) or given up (`stuck`: the rent is still on chain): whatever ends the row (the keeper
 * closing the channel, dropping an open that never landed, a settle voiding an open refused before it reached the
 * cluster) returns it to the budget;
 * - every other spend is one `fee_payer_exposure` row: `held` (rent expected back) until returned or voided, `spent`
 *   (gone for good) counted for 24 h.
 * A booking and its caps are one statement (or one batch, which D1 runs as one transaction), so two concurrent
 * bookings can never both pass a cap. The channel row itself is the upto rail's to write (src/rails/upto/store/):
 * the rail hands its guarded INSERT in as a port (`GuardedRowWrite`), so this core file imports no rail.
 */
import type { ClaimRiderSql, SqlText, SqlValue } from "./claim-riders";
import { EXPOSURE_STATES, type ExposureEnd, type ExposureState, LIVE_EXPOSURE_STATES, oneOf } from "./states";

/** Channel row states a settle may still void (its open may not have reached the cluster). */
const LIVE = `('opening', 'open')`;
/**
 * Channel row states whose rent is out, counted by the caps and /health: live ones, and those the keeper gave up on
 * (`stuck`: the channel and its escrow account still hold the fee payer's rent on chain; retention keeps such rows).
 */
const RENT_OUT = `('opening', 'open', 'stuck')`;
/** Channel row states of an open that never reached the cluster (voided by its settle, dropped by the keeper). */
const NEVER_SENT = `('voided', 'dropped')`;

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
function literal(value: bigint | number): string {
  const n = BigInt(value);
  return (n > SQL_INTEGER_MAX ? SQL_INTEGER_MAX : n < 0n ? 0n : n).toString();
}

/**
 * A limit that changes per call (the share of the balance) as a bind; beyond 2^53 lamports (9 million SOL) it is no
 * limit.
 */
function sqlLimit(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

// ---------------------------------------------------------------------------------------------------------------
// What is out, per buyer wallet, per payTo and in total

/** Rent out for `column` = ?N (upto channels live + held rows), as an SQL expression. */
function rentOutFor(column: "payer" | "pay_to", param: string): string {
  return (
    `((SELECT COALESCE(SUM(rent_lamports), 0) FROM upto_channels ` +
    `WHERE ${column} = ${param} AND state IN ${RENT_OUT})
    + (SELECT COALESCE(SUM(lamports), 0) FROM fee_payer_exposure WHERE ${column} = ${param} AND state = '${HELD}'))`
  );
}

const TOTAL_RENT_OUT = `((SELECT COALESCE(SUM(rent_lamports), 0) FROM upto_channels WHERE state IN ${RENT_OUT})
    + (SELECT COALESCE(SUM(lamports), 0) FROM fee_payer_exposure WHERE state = '${HELD}'))`;

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

/** The figures the upto caps compare, for one buyer wallet (?1) and one payTo (?2). */
export interface UptoOpenFigures {
  payerChannels: number;
  payToChannels: number;
  payerOpensSince: number;
  payerRentLamports: bigint;
  payToRentLamports: bigint;
  totalRentLamports: bigint;
}

/** The caps an upto open is booked under (lamports; `totalRentLamports` already turned from a share into lamports). */
export interface UptoOpenLimits {
  channelsPerPayer: number;
  channelsPerPayTo: number;
  opensPerPayerSince: number;
  /** Opens counted from this time on (a rolling hour). */
  opensSinceMs: number;
  rentPerPayerLamports: bigint;
  rentPerPayToLamports: bigint;
  totalRentLamports: bigint;
}

/** Live channels, opens since `opensSince`, and rent out for the upto caps of `payer` and `payTo` (SQL values). */
function uptoFiguresSql(payer: string, payTo: string, opensSince: string) {
  return {
    payerChannels: `(SELECT COUNT(*) FROM upto_channels WHERE payer = ${payer} AND state IN ${RENT_OUT})`,
    payToChannels: `(SELECT COUNT(*) FROM upto_channels WHERE pay_to = ${payTo} AND state IN ${RENT_OUT})`,
    // Opens that reached (or may have reached) the cluster: a voided or dropped one cost the fee payer nothing.
    payerOpensSince:
      `(SELECT COUNT(*) FROM upto_channels WHERE payer ` +
      `= ${payer} AND created_at_ms >= ${opensSince} AND state NOT IN ${NEVER_SENT})`,
    payerRent: rentOutFor("payer", payer),
    payToRent: rentOutFor("pay_to", payTo),
  };
}

/** What the upto caps need of a channel open (the rail's ChannelOpen has these and more). */
export interface RentRowOpen {
  channelId: string;
  openMessageHash: string;
  payer: string;
  payTo: string;
  /** The rent the fee payer fronts for the channel and its escrow token account. */
  rentLamports: bigint;
}

/** An SQL condition with its own binds, numbered from the writer's `firstGuardParam` on. */
export interface SqlGuard {
  sql: string;
  binds: SqlValue[];
}

/**
 * The port through which the upto rail writes a channel's row under the budget's guard: its INSERT … SELECT … WHERE
 * `guard`, which binds its own parameters first (1 to firstGuardParam − 1) and the guard's after them.
 */
export interface GuardedRowWrite {
  firstGuardParam: number;
  statement(guard: SqlGuard): SqlText;
}

/**
 * An upto channel open's booking, as a rider of the open's ledger claim (store/claim-riders.ts): the channel's row
 * (with its rent) is written only if, with this open's rent added, every cap still holds — or the row is already this
 * very open's, booked before (a retry changes nothing); the claim needs the row to be this open's and live; a row the
 * claim did not get is deleted in the same transaction; and, only on a refusal, what the caps saw and whose the row is.
 */
export function channelOpenRiderSql(open: RentRowOpen, write: GuardedRowWrite, limits: UptoOpenLimits): ClaimRiderSql {
  // The guard's own parameters, after the writer's: channel id, open message hash, payer, payTo, rent, opens since,
  // the total's limit (from the balance). The other caps are literals: fixed per configuration, so the text repeats.
  const at = (n: number) => `?${write.firstGuardParam + n}`;
  const [channelId, openHash, payer, payTo, rent, opensSince, totalMax] = [0, 1, 2, 3, 4, 5, 6].map(at);
  const f = uptoFiguresSql(payer!, payTo!, opensSince!);
  const withinCaps =
    `EXISTS (SELECT 1 FROM upto_channels WHERE channel_id ` +
    `= ${channelId} AND open_message_hash = ${openHash} AND state NOT IN ${NEVER_SENT})
    OR (${f.payerChannels} < ${literal(limits.channelsPerPayer)}
      AND ${f.payToChannels} < ${literal(limits.channelsPerPayTo)}
      AND ${f.payerOpensSince} < ${literal(limits.opensPerPayerSince)}
      AND ${f.payerRent} + ${rent} <= ${literal(limits.rentPerPayerLamports)}
      AND ${f.payToRent} + ${rent} <= ${literal(limits.rentPerPayToLamports)}
      AND ${TOTAL_RENT_OUT} + ${rent} <= ${totalMax})`;
  const binds = [
    open.channelId,
    open.openMessageHash,
    open.payer,
    open.payTo,
    sqlLamports(open.rentLamports),
    limits.opensSinceMs,
    sqlLimit(limits.totalRentLamports),
  ];
  return {
    writes: [write.statement({ sql: withinCaps, binds })],
    holds: {
      sql: `EXISTS (SELECT 1 FROM upto_channels WHERE channel_id = ?1 AND open_message_hash = ?2 AND state IN ${LIVE})`,
      binds: [open.channelId, open.openMessageHash],
    },
    undo: [
      {
        sql: `DELETE FROM upto_channels WHERE channel_id = ?1 AND open_message_hash = ?2 AND state = 'opening'
          AND NOT EXISTS (SELECT 1 FROM settlements s WHERE s.message_hash = ?2 AND s.state <> 'failed')`,
        binds: [open.channelId, open.openMessageHash],
      },
    ],
    reads: [{ sql: uptoOpenFiguresSql(), binds: uptoOpenFiguresBinds(open, limits.opensSinceMs) }],
  };
}

/** What the upto caps see for `open` (and whose the channel's row is), without writing: /verify's look at the caps. */
export async function readUptoOpenFigures(
  d1: D1Database,
  open: Pick<RentRowOpen, "payer" | "payTo" | "channelId">,
  opensSinceMs: number,
) {
  return uptoOpenFiguresOf(
    (await d1
      .prepare(uptoOpenFiguresSql())
      .bind(...uptoOpenFiguresBinds(open, opensSinceMs))
      .first()) as Record<string, number | string | null>,
  );
}

function uptoOpenFiguresSql(): string {
  const s = uptoFiguresSql("?1", "?2", "?4");
  return (
    `SELECT ${s.payerChannels} AS ` +
    `payerChannels, ${s.payToChannels} AS payToChannels, ${s.payerOpensSince} AS payerOpensSince,
         ${s.payerRent} AS payerRent, ${s.payToRent} AS payToRent, ${TOTAL_RENT_OUT} AS totalRent,
         c.open_message_hash AS openMessageHash,
         (c.claim_message_hash IS NOT NULL OR EXISTS (SELECT 1 FROM settlements s WHERE s.message_hash = ` +
    `c.open_message_hash AND s.state <> 'failed')) AS liveDeposit
       FROM (SELECT 1) LEFT JOIN upto_channels c ON c.channel_id = ?3`
  );
}

function uptoOpenFiguresBinds(open: Pick<RentRowOpen, "payer" | "payTo" | "channelId">, opensSinceMs: number) {
  return [open.payer, open.payTo, open.channelId, opensSinceMs];
}

export function uptoOpenFiguresOf(row: Record<string, number | string | null>): {
  figures: UptoOpenFigures;
  channel: { openMessageHash: string; liveDeposit: boolean } | null;
} {
  return {
    figures: {
      payerChannels: Number(row.payerChannels),
      payToChannels: Number(row.payToChannels),
      payerOpensSince: Number(row.payerOpensSince),
      payerRentLamports: BigInt(row.payerRent ?? 0),
      payToRentLamports: BigInt(row.payToRent ?? 0),
      totalRentLamports: BigInt(row.totalRent ?? 0),
    },
    channel:
      row.openMessageHash === null
        ? null
        : { openMessageHash: String(row.openMessageHash), liveDeposit: Boolean(row.liveDeposit) },
  };
}

/**
 * Voids an upto open that did not reach the cluster (refused at preflight, expired unseen, failed on chain): its rent
 * is no longer counted. Only while no call holds a live ledger row for it (a concurrent call about to send revives it
 * in recordChannelOpen) and no claim was signed. Returns whether it voided the row.
 */
export async function voidChannelOpen(
  d1: D1Database,
  channelId: string,
  openMessageHash: string,
  nowMs: number,
): Promise<boolean> {
  const result = await d1
    .prepare(
      `UPDATE upto_channels SET state = 'voided', updated_at_ms = ?3
       WHERE channel_id = ?1 AND open_message_hash = ?2 AND state IN ${LIVE} AND claim_message_hash IS NULL
         AND NOT EXISTS (SELECT 1 FROM settlements s WHERE s.message_hash = ?2 AND s.state <> 'failed')`,
    )
    .bind(channelId, openMessageHash, nowMs)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

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
 */
export async function bookExposureWithinCaps(
  d1: D1Database,
  row: ExposureRow,
  limits: HeldLimits | SpentLimits,
  nowMs: number,
): Promise<{ booked: boolean; figures: ExposureFigures }> {
  const spent = "sinceMs" in limits;
  const figuresSql = (payer: string, payTo: string, since: string) =>
    spent
      ? { payer: "0", payTo: "0", total: spentHoursSince(since, JOBS_SCOPE) }
      : { payer: rentOutFor("payer", payer), payTo: rentOutFor("pay_to", payTo), total: TOTAL_RENT_OUT };
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
  /** Rent out per rail (upto from its channel rows, the rest from held rows). */
  rentOutByRail: Record<string, bigint>;
  spentSinceByRail: Record<string, bigint>;
  /** Spent since, per pool (buyers, sellers, jobs). */
  spentSinceByPool: Record<string, bigint>;
  /** The same per fee payer that fronted or spent it (UNRECORDED_FEE_PAYER: rows written before migration 0013). */
  rentOutByFeePayer: Record<string, bigint>;
  spentSinceByFeePayer: Record<string, bigint>;
  uptoLiveChannels: number;
  largest: {
    uptoChannelsOfOnePayer: number;
    uptoChannelsOfOnePayTo: number;
    uptoOpensOfOnePayerSince: number;
    rentOfOnePayer: bigint;
    rentOfOnePayTo: bigint;
    /** What one buyer's payments cost (both buyer pools). */
    spentByOnePayer: bigint;
    /** What payments to one payTo of the strangers' pool cost; and to one proven seller, out of its quota. */
    spentForOnePayTo: bigint;
    spentForOneProvenSeller: bigint;
  };
}

/** The fee payer of rows written before migration 0013 recorded it (the key in use then). */
export const UNRECORDED_FEE_PAYER = "unrecorded";

/** One batch of small aggregates over the live rows (bounded by the caps themselves) and the last day's spent rows. */
export async function readExposureSummary(
  d1: D1Database,
  opensSinceMs: number,
  spentSinceMs: number,
): Promise<ExposureSummary> {
  const since = literal(spentSinceMs); // /health: not a hot path, the statements may differ per call
  const rentRows = `SELECT payer, pay_to, rent_lamports AS lamports FROM upto_channels WHERE state IN ${RENT_OUT}
    UNION ALL SELECT payer, pay_to, lamports FROM fee_payer_exposure WHERE state = '${HELD}'`;
  const spentIn = (pools: string) =>
    `SELECT payer, pay_to, lamports FROM fee_payer_exposure WHERE state = ` +
    `'${SPENT}' AND booked_at_ms >= ${since} AND pool IN (${pools})`;
  const largest = (rows: string, column: string, measure: string) =>
    `SELECT COALESCE(MAX(n), 0) AS n FROM ` +
    `(SELECT ${measure} AS n FROM (${rows}) WHERE ${column} IS NOT NULL GROUP BY ${column})`;
  const liveChannels = `SELECT payer, pay_to FROM upto_channels WHERE state IN ${RENT_OUT}`;
  const statements = [
    `SELECT 'upto' AS rail, COALESCE(SUM(rent_lamports), 0) AS lamports, COUNT(*) AS channels FROM upto_channels ` +
      `WHERE state IN ${RENT_OUT}
     UNION ALL SELECT rail, SUM(lamports), 0 FROM fee_payer_exposure WHERE state = '${HELD}' GROUP BY rail`,
    `SELECT rail, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = ` +
      `'${SPENT}' AND booked_at_ms >= ${since} GROUP BY rail`,
    `SELECT fee_payer, SUM(lamports) AS lamports FROM (SELECT fee_payer, rent_lamports AS lamports FROM ` +
      `upto_channels WHERE state IN ${RENT_OUT}
       UNION ALL SELECT fee_payer, lamports FROM fee_payer_exposure WHERE state = '${HELD}') GROUP BY fee_payer`,
    `SELECT fee_payer, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = ` +
      `'${SPENT}' AND booked_at_ms >= ${since} GROUP BY fee_payer`,
    `SELECT pool, SUM(lamports) AS lamports FROM fee_payer_exposure WHERE state = ` +
      `'${SPENT}' AND booked_at_ms >= ${since} GROUP BY pool`,
    largest(liveChannels, "payer", "COUNT(*)"),
    largest(liveChannels, "pay_to", "COUNT(*)"),
    largest(
      `SELECT payer FROM upto_channels WHERE created_at_ms >= ${literal(opensSinceMs)} AND state NOT IN ${NEVER_SENT}`,
      "payer",
      "COUNT(*)",
    ),
    largest(rentRows, "payer", "SUM(lamports)"),
    largest(rentRows, "pay_to", "SUM(lamports)"),
    largest(spentIn("'buyers', 'sellers'"), "payer", "SUM(lamports)"),
    largest(spentIn("'buyers'"), "pay_to", "SUM(lamports)"),
    largest(spentIn("'sellers'"), "pay_to", "SUM(lamports)"),
  ];
  const results = await d1.batch(statements.map((sql) => d1.prepare(sql)));
  const [out, spent, outByFeePayer, spentByFeePayer, spentByPool, ...maxima] = results.map(
    (r) => r.results as Record<string, number | string | null>[],
  );
  const n = (i: number) => Number(maxima[i]![0]!.n);
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
    uptoLiveChannels: Number(out!.find((r) => r.rail === "upto")?.channels ?? 0),
    largest: {
      uptoChannelsOfOnePayer: n(0),
      uptoChannelsOfOnePayTo: n(1),
      uptoOpensOfOnePayerSince: n(2),
      rentOfOnePayer: big(3),
      rentOfOnePayTo: big(4),
      spentByOnePayer: big(5),
      spentForOnePayTo: big(6),
      spentForOneProvenSeller: big(7),
    },
  };
}
