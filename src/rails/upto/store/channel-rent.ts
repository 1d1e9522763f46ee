/**
 * The SQL of a channel's rent in the fee payer's exposure budget (the budget's rules: src/chain/fee-payer-budget/, its
 * SQL: src/store/fee-payer-exposure.ts). The rent an Open fronts sits on the channel's own row
 * (`upto_channels.rent_lamports`) and counts while the row is live (`opening` or `open`) or given up (`stuck`: the
 * rent is still on chain): whatever ends the row (the keeper closing the channel, dropping an open that never landed,
 * a settle voiding an open refused before it reached the cluster) returns it to the budget. The row is booked by a
 * rider of the deposit's ledger claim: written only where every cap, the rail's and the budget's, holds.
 */
import type { ClaimRiderSql, SqlText, SqlValue } from "../../../store/claim-riders";
import {
  largestOfOne,
  literal,
  rentOutFor,
  sqlLamports,
  sqlLimit,
  totalRentOut,
} from "../../../store/fee-payer-exposure";
import type { RailRentRows } from "../../../store/rail-rent-rows";

/** Channel row states a settle may still void (its open may not have reached the cluster). */
const LIVE = `('opening', 'open')`;
/**
 * Channel row states whose rent is out, counted by the caps and /health: live ones, and those the keeper gave up on
 * (`stuck`: the channel and its escrow account still hold the fee payer's rent on chain; retention keeps such rows).
 */
const RENT_OUT = `('opening', 'open', 'stuck')`;
/** Channel row states of an open that never reached the cluster (voided by its settle, dropped by the keeper). */
const NEVER_SENT = `('voided', 'dropped')`;

/** The budget's port: where the channels' rent is out (every held booking's caps count it). */
export const CHANNEL_RENT_ROWS: RailRentRows = {
  rail: "upto",
  table: "upto_channels",
  lamportsColumn: "rent_lamports",
  outWhere: `state IN ${RENT_OUT}`,
};

/** The figures the channel caps compare, for one buyer wallet and one payTo. */
export interface ChannelOpenFigures {
  payerChannels: number;
  payToChannels: number;
  payerOpensSince: number;
  payerRentLamports: bigint;
  payToRentLamports: bigint;
  totalRentLamports: bigint;
}

/** The caps a channel open is booked under (lamports; `totalRentLamports` turned from a share into lamports). */
export interface ChannelOpenLimits {
  channelsPerPayer: number;
  channelsPerPayTo: number;
  opensPerPayerSince: number;
  /** Opens counted from this time on (a rolling hour). */
  opensSinceMs: number;
  rentPerPayerLamports: bigint;
  rentPerPayToLamports: bigint;
  totalRentLamports: bigint;
}

/**
 * Live channels, opens since `opensSince`, and rent out (every rail's and the held bookings') for the caps of `payer`
 * and `payTo` (SQL values).
 */
function channelFiguresSql(railRent: readonly RailRentRows[], payer: string, payTo: string, opensSince: string) {
  return {
    payerChannels: `(SELECT COUNT(*) FROM upto_channels WHERE payer = ${payer} AND state IN ${RENT_OUT})`,
    payToChannels: `(SELECT COUNT(*) FROM upto_channels WHERE pay_to = ${payTo} AND state IN ${RENT_OUT})`,
    // Opens that reached (or may have reached) the cluster: a voided or dropped one cost the fee payer nothing.
    payerOpensSince:
      `(SELECT COUNT(*) FROM upto_channels WHERE payer ` +
      `= ${payer} AND created_at_ms >= ${opensSince} AND state NOT IN ${NEVER_SENT})`,
    payerRent: rentOutFor(railRent, "payer", payer),
    payToRent: rentOutFor(railRent, "pay_to", payTo),
  };
}

/** What the channel caps need of an open (the rail's ChannelOpen has these and more). */
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
 * The channel row's guarded INSERT (store/upto-channels.ts): INSERT … SELECT … WHERE `guard`, which binds its own
 * parameters first (1 to firstGuardParam − 1) and the guard's after them.
 */
export interface GuardedRowWrite {
  firstGuardParam: number;
  statement(guard: SqlGuard): SqlText;
}

/**
 * A channel open's booking, as a rider of the open's ledger claim (store/claim-riders.ts): the channel's row (with its
 * rent) is written only if, with this open's rent added, every cap still holds — or the row is already this very
 * open's, booked before (a retry changes nothing); the claim needs the row to be this open's and live; a row the claim
 * did not get is deleted in the same transaction; and, only on a refusal, what the caps saw and whose the row is.
 * `railRent`: every rail's rent rows (this one's among them), counted with the held bookings.
 */
export function channelOpenRiderSql(
  open: RentRowOpen,
  write: GuardedRowWrite,
  limits: ChannelOpenLimits,
  railRent: readonly RailRentRows[],
): ClaimRiderSql {
  // The guard's own parameters, after the writer's: channel id, open message hash, payer, payTo, rent, opens since,
  // the total's limit (from the balance). The other caps are literals: fixed per configuration, so the text repeats.
  const at = (n: number) => `?${write.firstGuardParam + n}`;
  const [channelId, openHash, payer, payTo, rent, opensSince, totalMax] = [0, 1, 2, 3, 4, 5, 6].map(at);
  const f = channelFiguresSql(railRent, payer!, payTo!, opensSince!);
  const withinCaps =
    `EXISTS (SELECT 1 FROM upto_channels WHERE channel_id ` +
    `= ${channelId} AND open_message_hash = ${openHash} AND state NOT IN ${NEVER_SENT})
    OR (${f.payerChannels} < ${literal(limits.channelsPerPayer)}
      AND ${f.payToChannels} < ${literal(limits.channelsPerPayTo)}
      AND ${f.payerOpensSince} < ${literal(limits.opensPerPayerSince)}
      AND ${f.payerRent} + ${rent} <= ${literal(limits.rentPerPayerLamports)}
      AND ${f.payToRent} + ${rent} <= ${literal(limits.rentPerPayToLamports)}
      AND ${totalRentOut(railRent)} + ${rent} <= ${totalMax})`;
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
    reads: [
      {
        sql: channelOpenFiguresSql(railRent),
        binds: channelOpenFiguresBinds(open, limits.opensSinceMs),
      },
    ],
  };
}

/** What the channel caps see for `open` (and whose the channel's row is), without writing: /verify's look. */
export async function readChannelOpenFigures(
  d1: D1Database,
  open: Pick<RentRowOpen, "payer" | "payTo" | "channelId">,
  opensSinceMs: number,
  railRent: readonly RailRentRows[],
) {
  return channelOpenFiguresOf(
    (await d1
      .prepare(channelOpenFiguresSql(railRent))
      .bind(...channelOpenFiguresBinds(open, opensSinceMs))
      .first()) as Record<string, number | string | null>,
  );
}

function channelOpenFiguresSql(railRent: readonly RailRentRows[]): string {
  const s = channelFiguresSql(railRent, "?1", "?2", "?4");
  return (
    `SELECT ${s.payerChannels} AS ` +
    `payerChannels, ${s.payToChannels} AS payToChannels, ${s.payerOpensSince} AS payerOpensSince,
         ${s.payerRent} AS payerRent, ${s.payToRent} AS payToRent, ${totalRentOut(railRent)} AS totalRent,
         c.open_message_hash AS openMessageHash,
         (c.claim_message_hash IS NOT NULL OR EXISTS (SELECT 1 FROM settlements s WHERE s.message_hash = ` +
    `c.open_message_hash AND s.state <> 'failed')) AS liveDeposit
       FROM (SELECT 1) LEFT JOIN upto_channels c ON c.channel_id = ?3`
  );
}

function channelOpenFiguresBinds(open: Pick<RentRowOpen, "payer" | "payTo" | "channelId">, opensSinceMs: number) {
  return [open.payer, open.payTo, open.channelId, opensSinceMs];
}

export function channelOpenFiguresOf(row: Record<string, number | string | null>): {
  figures: ChannelOpenFigures;
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
 * Voids a channel open that did not reach the cluster (refused at preflight, expired unseen, failed on chain): its
 * rent is no longer counted. Only while no call holds a live ledger row for it (a concurrent call about to send
 * revives it in recordChannelOpen) and no claim was signed. Returns whether it voided the row.
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

/**
 * /health's figures of the channel caps, one row: live channels, the most of one buyer wallet and of one payTo, and
 * the most opens of one buyer wallet since `opensSinceMs`.
 */
export function channelHealthFiguresSql(opensSinceMs: number): string {
  const liveChannels = `SELECT payer, pay_to FROM upto_channels WHERE state IN ${RENT_OUT}`;
  const opensSince =
    `SELECT payer FROM upto_channels WHERE created_at_ms >= ${literal(opensSinceMs)} ` +
    `AND state NOT IN ${NEVER_SENT}`;
  return `SELECT (SELECT COUNT(*) FROM upto_channels WHERE state IN ${RENT_OUT}) AS liveChannels,
    (${largestOfOne(liveChannels, "payer", "COUNT(*)")}) AS channelsOfOnePayer,
    (${largestOfOne(liveChannels, "pay_to", "COUNT(*)")}) AS channelsOfOnePayTo,
    (${largestOfOne(opensSince, "payer", "COUNT(*)")}) AS opensOfOnePayerSince`;
}
