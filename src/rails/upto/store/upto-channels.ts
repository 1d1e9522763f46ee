/**
 * The upto rail's channels in D1 (migration 0010): one row per payment channel whose Open this facilitator co-signed
 * as fee payer and rent payer. The row points at the deposit's ledger row, keeps the one claim transaction signed
 * for the channel, and queues the channel for the keeper that closes it once no voucher can settle any more.
 * Channel facts the keeper acts on (status, parties, amounts) are read from the chain, never from here.
 *
 * States: `opening` (written before the Open is first sent; not in the keeper's queue), `open` (the cluster accepted
 * the Open: the keeper's queue), then the keeper's `closed` (the rent is back), `dropped` or `stuck`. A row whose Open
 * never landed (its ledger row was given back or failed) is deleted: nothing of the fee payer's is out for it.
 */

import type { ClaimRiderSql, SqlText } from "../../../store/claim-riders";
import { claimDueRows, type KeeperTable, keeperTableOf } from "../../../store/keeper-queue";
import type { GuardedRowWrite, SqlGuard } from "./channel-rent";
import { uptoChannels } from "./tables";

export interface ChannelOpen {
  channelId: string;
  openMessageHash: string;
  openBlockhash: string;
  payer: string;
  payTo: string;
  asset: string;
  tokenProgram: string;
  deposit: string;
  /** Unix seconds: the payload's voucher expiry. */
  expiresAt: number;
  /** When the keeper first looks at the channel. */
  firstCheckAtMs: number;
  /**
   * The rent the fee payer fronts for the channel and its escrow token account (the exposure budget counts it while the
   * row is live).
   */
  rentLamports: bigint;
  /** The fee payer that fronts it (with key rotation, one of several). */
  feePayer: string;
}

export interface StoredClaim {
  messageHash: string;
  amount: string;
  /** The signed claim transaction, base64. */
  transaction: string;
}

export interface ChannelRow extends Omit<ChannelOpen, "feePayer"> {
  /** Null on rows written before migration 0013. */
  feePayer: string | null;
  claim: StoredClaim | null;
  state: string;
}

/**
 * Records the channel, state `opening`, before its Open is first sent (idempotent: the settle engine may call it again
 * for the same deposit). A different deposit for a channel that has a live one (its ledger row exists and has not
 * failed) is refused: both cannot land, and the second would only cost the fee payer a failed transaction. A deposit
 * whose ledger row is gone (the cluster never accepted it) or failed gives the channel up to the next one, which starts
 * afresh (`opening`, no failures, no keeper claim).
 */
export async function recordChannelOpen(d1: D1Database, open: ChannelOpen, nowMs: number): Promise<boolean> {
  const { sql, binds } = channelOpenStatement(open, nowMs);
  const written = await d1
    .prepare(sql)
    .bind(...binds)
    .run();
  return (written.meta.changes ?? 0) > 0;
}

/**
 * The exposure budget's port (src/store/fee-payer-exposure.ts `GuardedRowWrite`): the channel's row, written only
 * where the budget's caps (`guard`, its binds after this statement's) hold.
 */
export function channelOpenWrite(open: ChannelOpen, nowMs: number): GuardedRowWrite {
  return {
    firstGuardParam: CHANNEL_OPEN_PARAMS + 1,
    statement: (guard) => channelOpenStatement(open, nowMs, guard),
  };
}

/** The parameters channelOpenStatement binds before its guard's. */
const CHANNEL_OPEN_PARAMS = 13;

/**
 * recordChannelOpen's statement. `guard`: an SQL condition that must hold for the row to be written; its binds are
 * numbered from ?14 on. Written again before a send, the same open revives a row ended as never sent (voided by a
 * concurrent call's refused send, or dropped): it is about to be sent, so its rent is out; another deposit taking the
 * channel over makes the row live for it.
 */
export function channelOpenStatement(
  open: ChannelOpen,
  nowMs: number,
  guard: SqlGuard = { sql: "1", binds: [] },
): SqlText {
  return {
    sql:
      `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, ` +
      `token_program, deposit, expires_at,
         state, next_check_at_ms, failures, created_at_ms, updated_at_ms, rent_lamports, fee_payer)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'opening', ?10, 0, ?11, ?11, ?12, ?13 WHERE ${guard.sql}
       ON CONFLICT (channel_id) DO UPDATE SET open_message_hash = excluded.open_message_hash, open_blockhash = ` +
      `excluded.open_blockhash,
         payer = excluded.payer, pay_to = excluded.pay_to, asset = excluded.asset, token_program = ` +
      `excluded.token_program,
         deposit = excluded.deposit, expires_at = excluded.expires_at, next_check_at_ms = excluded.next_check_at_ms, ` +
      `updated_at_ms = excluded.updated_at_ms,
         rent_lamports = excluded.rent_lamports, fee_payer = excluded.fee_payer,
         ${RESTART_UNLESS_SAME_LIVE_OPEN}
       WHERE upto_channels.open_message_hash = excluded.open_message_hash
          OR (upto_channels.claim_message_hash IS NULL AND NOT EXISTS (
                SELECT 1 FROM settlements s WHERE s.message_hash = upto_channels.open_message_hash AND s.state <> ` +
      `'failed'))`,
    binds: [
      open.channelId,
      open.openMessageHash,
      open.openBlockhash,
      open.payer,
      open.payTo,
      open.asset,
      open.tokenProgram,
      open.deposit,
      open.expiresAt,
      open.firstCheckAtMs,
      nowMs,
      Number(open.rentLamports),
      open.feePayer,
      ...guard.binds,
    ],
  };
}

/**
 * The same Open sent again keeps its row as it is; any other row (another deposit, or one the keeper finished) starts
 * over.
 */
const SAME_LIVE_OPEN =
  `upto_channels.open_message_hash = excluded.open_message_hash AND upto_channels.state IN ` + `('opening', 'open')`;
const RESTART_UNLESS_SAME_LIVE_OPEN =
  `state = CASE WHEN ${SAME_LIVE_OPEN} THEN upto_channels.state ELSE 'opening' END,
         failures = CASE WHEN ${SAME_LIVE_OPEN} THEN upto_channels.failures ELSE 0 END,
         keeper_claim_id = CASE WHEN ${SAME_LIVE_OPEN} THEN upto_channels.keeper_claim_id ELSE NULL END,
         keeper_claim_expires_at_ms = CASE ` +
  `WHEN ${SAME_LIVE_OPEN} THEN upto_channels.keeper_claim_expires_at_ms ELSE NULL END`;

/** The deposit's ledger row says the Open can no longer land, or never reached the cluster (given back). */
const OPEN_NEVER_LANDED =
  `NOT EXISTS (SELECT 1 FROM settlements s WHERE s.message_hash = ` +
  `upto_channels.open_message_hash AND s.state <> 'failed')`;

/**
 * Deletes the row of an Open the cluster did not accept (the settle engine gave its ledger row back, or recorded it
 * failed), unless a retry of the same deposit holds the ledger row again. Called by the deposit's settle when it is
 * refused, so a flood of deposits that fail preflight leaves nothing behind.
 */
export async function dropUnlandedOpen(d1: D1Database, channelId: string, openMessageHash: string): Promise<void> {
  await d1
    .prepare(
      `DELETE FROM upto_channels WHERE channel_id = ?1 AND open_message_hash = ?2 AND state = 'opening' ` +
        `AND ${OPEN_NEVER_LANDED}`,
    )
    .bind(channelId, openMessageHash)
    .run();
}

interface RawChannelRow {
  channel_id: string;
  open_message_hash: string;
  open_blockhash: string;
  payer: string;
  pay_to: string;
  asset: string;
  token_program: string;
  deposit: string;
  expires_at: number;
  next_check_at_ms: number;
  claim_message_hash: string | null;
  claim_amount: string | null;
  claim_transaction: string | null;
  state: string;
  rent_lamports: number;
  fee_payer: string | null;
}

function toChannelRow(row: RawChannelRow): ChannelRow {
  return {
    channelId: row.channel_id,
    openMessageHash: row.open_message_hash,
    openBlockhash: row.open_blockhash,
    payer: row.payer,
    payTo: row.pay_to,
    asset: row.asset,
    tokenProgram: row.token_program,
    deposit: row.deposit,
    expiresAt: row.expires_at,
    firstCheckAtMs: row.next_check_at_ms,
    rentLamports: BigInt(row.rent_lamports),
    feePayer: row.fee_payer,
    state: row.state,
    claim:
      row.claim_message_hash && row.claim_amount !== null && row.claim_transaction
        ? { messageHash: row.claim_message_hash, amount: row.claim_amount, transaction: row.claim_transaction }
        : null,
  };
}

/** The channel's row with the state of its deposit's ledger row (null: no ledger row). One D1 read. */
export async function getChannelWithDeposit(
  d1: D1Database,
  channelId: string,
): Promise<{ channel: ChannelRow; depositState: string | null } | null> {
  const row = await d1
    .prepare(
      `SELECT c.*, s.state AS deposit_state FROM upto_channels c LEFT JOIN settlements s ON s.message_hash = ` +
        `c.open_message_hash WHERE c.channel_id = ?`,
    )
    .bind(channelId)
    .first<RawChannelRow & { deposit_state: string | null }>();
  return row ? { channel: toChannelRow(row), depositState: row.deposit_state } : null;
}

/**
 * Stores the channel's claim transaction unless another call stored one first (`replacing`: the claim this call found
 * dead — never landed and expired — which only it may swap out), as a rider of that claim's ledger claim (its one D1
 * transaction): the ledger row is written only when the channel's stored claim is this one. The caller saw the deposit
 * confirmed, so an `opening` row enters the keeper's queue here. `reads`: the claim the channel holds instead.
 */
export function claimStoreRider(
  channelId: string,
  claim: StoredClaim,
  replacing: string | null,
  nowMs: number,
): ClaimRiderSql {
  return {
    writes: [
      {
        sql:
          `UPDATE upto_channels SET claim_message_hash = ?1, claim_amount = ?2, claim_transaction = ?3, state = ` +
          `'open', updated_at_ms = ?4
          WHERE channel_id = ?5 AND state IN ('opening', 'open') AND (claim_message_hash IS NULL OR ` +
          `claim_message_hash = ?6)`,
        binds: [claim.messageHash, claim.amount, claim.transaction, nowMs, channelId, replacing],
      },
    ],
    holds: {
      sql: "EXISTS (SELECT 1 FROM upto_channels WHERE channel_id = ?1 AND claim_message_hash = ?2)",
      binds: [channelId, claim.messageHash],
    },
    undo: [],
    reads: [
      {
        sql:
          "SELECT claim_message_hash AS messageHash, claim_amount AS amount FROM upto_channels WHERE channel_id = " +
          "?1",
        binds: [channelId],
      },
    ],
  };
}

/** After a confirmed claim the keeper only has the rent left to collect: look again at `atMs`. */
export async function scheduleChannelCheck(
  d1: D1Database,
  channelId: string,
  atMs: number,
  nowMs: number,
): Promise<void> {
  await d1
    .prepare(
      `UPDATE upto_channels SET next_check_at_ms = ?1, updated_at_ms = ?2 WHERE channel_id = ?3 AND state = 'open' ` +
        `AND next_check_at_ms > ?1`,
    )
    .bind(atMs, nowMs, channelId)
    .run();
}

// ---------------------------------------------------------------------------------------------------------------
// The keeper's queue

/** A claimed queue row with its deposit's ledger row (null when the ledger has none). */
export interface DueChannel {
  channelId: string;
  openBlockhash: string;
  payer: string;
  payTo: string;
  asset: string;
  tokenProgram: string;
  expiresAt: number;
  failures: number;
  claimMessageHash: string | null;
  deposit: { messageHash: string; state: string; signature: string; scheme: string } | null;
}

/** The keeper's queue (store/keeper-queue.ts): one row per channel. */
/**
 * A `stuck` channel still holds the fee payer's rent on chain: retention keeps its row, so the exposure budget counts
 * it.
 */
export const UPTO_CHANNELS_TABLE: KeeperTable = keeperTableOf(
  uptoChannels,
  { key: uptoChannels.channelId, claim: uptoChannels.keeperClaimId, claimExpires: uptoChannels.keeperClaimExpiresAtMs },
  { finishedStates: ["closed", "dropped", "voided"] },
);

const DUE_COLUMNS =
  `c.channel_id AS channelId, c.open_blockhash AS openBlockhash, c.payer AS payer, c.pay_to AS ` +
  `payTo, c.asset AS asset,
  c.token_program AS tokenProgram, c.expires_at AS expiresAt, c.failures AS failures, c.claim_message_hash AS ` +
  `claimMessageHash,
  s.message_hash AS ledgerHash, s.state AS ledgerState, s.signature AS ledgerSignature, s.scheme AS ledgerScheme`;

type JoinedDue = Omit<DueChannel, "deposit"> & {
  ledgerHash: string | null;
  ledgerState: string | null;
  ledgerSignature: string | null;
  ledgerScheme: string | null;
};

function toDue(row: JoinedDue): DueChannel {
  const { ledgerHash, ledgerState, ledgerSignature, ledgerScheme, ...rest } = row;
  const deposit =
    ledgerHash && ledgerState && ledgerSignature && ledgerScheme
      ? { messageHash: ledgerHash, state: ledgerState, signature: ledgerSignature, scheme: ledgerScheme }
      : null;
  return { ...rest, deposit };
}

/** `opening` rows one keeper run promotes or deletes at most (each kind); the rest wait for the next run. */
export const OPENING_ROWS_PER_RUN = 500;
/**
 * An `opening` row untouched this long without a live ledger row is one whose open never landed. Younger ones are left
 * to the call that wrote them (a row may be written before its deposit's ledger row, e.g. when the rent is booked).
 */
export const OPENING_ROW_GRACE_MS = 60_000;

/**
 * Claims up to `limit` due channels for one keeper run and returns them with their deposit's ledger row, in one batch
 * that first settles the `opening` rows: an Open the cluster accepted (its ledger row is confirmed or pending, or was
 * being sent by a call whose lease ran out) enters the queue; an Open that never landed is deleted. So only accepted
 * channels compete for a run's slots, and a flood of Opens refused at preflight cannot crowd out one that is due.
 */
export async function claimDueChannels(
  d1: D1Database,
  claimId: string,
  nowMs: number,
  claimMs: number,
  limit: number,
): Promise<DueChannel[]> {
  const claimed =
    `SELECT ${DUE_COLUMNS} FROM upto_channels c LEFT JOIN settlements s ON s.message_hash = ` +
    `c.open_message_hash WHERE c.keeper_claim_id = ?1 ORDER BY c.failures > 0, c.next_check_at_ms`;
  const opening = (where: string) =>
    `SELECT channel_id FROM upto_channels WHERE state = 'opening' AND ${where} LIMIT ${OPENING_ROWS_PER_RUN}`;
  const accepted =
    `EXISTS (SELECT 1 FROM settlements s WHERE s.message_hash = upto_channels.open_message_hash
    AND (s.state IN ('confirmed', 'pending') OR (s.state = 'submitting' AND COALESCE(s.lease_expires_at_ms, 0) <= ` +
    `?1)))`;
  const upkeep = [
    d1
      .prepare(`UPDATE upto_channels SET state = 'open', updated_at_ms = ?1 WHERE channel_id IN (${opening(accepted)})`)
      .bind(nowMs),
    d1
      .prepare(
        `DELETE FROM upto_channels WHERE channel_id IN (${opening(`updated_at_ms <= ?1 AND ${OPEN_NEVER_LANDED}`)})`,
      )
      .bind(nowMs - OPENING_ROW_GRACE_MS),
  ];
  return (await claimDueRows<JoinedDue>(d1, UPTO_CHANNELS_TABLE, claimed, claimId, nowMs, claimMs, limit, upkeep)).map(
    toDue,
  );
}
