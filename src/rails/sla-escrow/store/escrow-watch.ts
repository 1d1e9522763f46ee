/**
 * The escrow keeper's bookkeeping in D1: one row per sla-escrow funding this facilitator settled and the cluster
 * accepted, open until the chain shows the payment released or refunded. A row is a pointer (Payment address and
 * funding signature), never a source of payment facts: the keeper reads those from the chain and checks the funding
 * against the settlement ledger. A run claims its rows (one conditional UPDATE) before reading or sending anything,
 * so two runs never act on the same payment while the claim lasts.
 */
import type { ClaimRiderSql } from "../../../store/claim-riders";
import { claimDueRows, dueKeysSql, type KeeperTable, keeperTableOf } from "../../../store/keeper-queue";
import { escrowWatch } from "./tables";

/** A claimed row with the settlement ledger's row of its funding (null when the ledger has none). */
export interface WatchedPayment {
  paymentPda: string;
  fundingSignature: string;
  fundingBlockhash: string | null;
  sponsoredPayer: string | null;
  failures: number;
  createdAtMs: number;
  ledger: FundingLedgerRow | null;
}

export interface FundingLedgerRow {
  messageHash: string;
  state: string;
  scheme: string;
  payer: string;
  asset: string;
  amount: string;
  merchantWallet: string;
}

export interface AcceptedFunding {
  paymentPda: string;
  fundingSignature: string;
  fundingBlockhash: string;
  /** The buyer when the facilitator paid the funding's fee (sponsorship), else null. */
  sponsoredPayer: string | null;
}

/**
 * The watch row of a funding, written with the funding's ledger claim (a rider of its D1 transaction: no round trip of
 * its own), so the keeper watches every funding the cluster may have, and nothing of one whose claim was refused:
 * undone in the same transaction when the claim wrote no row, and dropped by the keeper once the ledger shows the
 * funding never landed. The Payment address depends on uid and bank only, so two fundings can point at one address:
 * a new funding never displaces an existing row here; the one that confirms takes the row over (`takeOverWatch`).
 */
export function watchRider(funding: AcceptedFunding, messageHash: string, nowMs: number): ClaimRiderSql {
  return {
    writes: [
      {
        sql:
          `INSERT INTO escrow_watch (payment_pda, funding_signature, funding_blockhash, sponsored_payer, state, ` +
          `next_check_at_ms, failures, created_at_ms, updated_at_ms)
          VALUES (?1, ?2, ?3, ?4, 'open', ?5, 0, ?5, ?5) ON CONFLICT (payment_pda) DO NOTHING`,
        binds: [funding.paymentPda, funding.fundingSignature, funding.fundingBlockhash, funding.sponsoredPayer, nowMs],
      },
    ],
    // The watch never holds a claim back: a row of another funding at the same address waits for this one to confirm.
    holds: { sql: "1", binds: [] },
    undo: [
      {
        sql:
          `DELETE FROM escrow_watch WHERE payment_pda = ?1 AND funding_signature = ?2 AND failures = 0 AND ` +
          `last_outcome IS NULL
          AND NOT EXISTS (SELECT 1 FROM settlements WHERE message_hash = ?3)`,
        binds: [funding.paymentPda, funding.fundingSignature, messageHash],
      },
    ],
    reads: [],
  };
}

/**
 * After the funding confirmed (after the response): a row that watches another funding of the same Payment address
 * (one that never landed: at most one of them can) is taken over by this one. Writes nothing in the common case.
 */
export async function takeOverWatch(d1: D1Database, funding: AcceptedFunding, nowMs: number): Promise<void> {
  await d1
    .prepare(
      `UPDATE escrow_watch SET funding_signature = ?2, funding_blockhash = ?3, sponsored_payer = ?4, state = 'open', ` +
        `next_check_at_ms = ?5,
         failures = 0, last_outcome = NULL, last_detail = NULL, updated_at_ms = ?5
       WHERE payment_pda = ?1 AND funding_signature <> ?2`,
    )
    .bind(funding.paymentPda, funding.fundingSignature, funding.fundingBlockhash, funding.sponsoredPayer, nowMs)
    .run();
}

/**
 * A funding the cluster never accepted (refused at preflight): its watch row goes, unless the ledger holds it again.
 */
export async function dropUnsentWatch(
  d1: D1Database,
  funding: Pick<AcceptedFunding, "paymentPda" | "fundingSignature">,
  messageHash: string,
): Promise<void> {
  await d1
    .prepare(
      `DELETE FROM escrow_watch WHERE payment_pda = ?1 AND funding_signature = ?2 AND NOT EXISTS (SELECT 1 FROM ` +
        `settlements WHERE message_hash = ?3)`,
    )
    .bind(funding.paymentPda, funding.fundingSignature, messageHash)
    .run();
}

/** The keeper's queue (store/keeper-queue.ts): one row per payment, keyed by its address. */
export const ESCROW_WATCH_TABLE: KeeperTable = keeperTableOf(escrowWatch, {
  key: escrowWatch.paymentPda,
  claim: escrowWatch.claimId,
  claimExpires: escrowWatch.claimExpiresAtMs,
});

const WATCH_COLUMNS =
  `w.payment_pda AS paymentPda, w.funding_signature AS fundingSignature, w.funding_blockhash AS ` +
  `fundingBlockhash,
  w.sponsored_payer AS sponsoredPayer, w.failures AS failures, w.created_at_ms AS createdAtMs,
  s.message_hash AS messageHash, s.state AS ledgerState, s.scheme AS scheme, s.payer AS payer, s.asset AS asset, ` +
  `s.amount AS amount,
  s.merchant_wallet AS merchantWallet`;
const LEDGER_JOIN = `LEFT JOIN settlements s ON s.signature = w.funding_signature`;
const DUE_ORDER = `ORDER BY w.failures > 0, w.next_check_at_ms`;

type JoinedRow = Omit<WatchedPayment, "ledger"> & { messageHash: string | null; ledgerState: string | null } & Omit<
    FundingLedgerRow,
    "messageHash" | "state"
  >;

function toWatched(row: JoinedRow): WatchedPayment {
  const { messageHash, ledgerState, scheme, payer, asset, amount, merchantWallet, ...watch } = row;
  const ledger =
    messageHash && ledgerState
      ? { messageHash, state: ledgerState, scheme, payer, asset, amount, merchantWallet }
      : null;
  return { ...watch, ledger };
}

/**
 * Claims up to `limit` open, due payments not held by a live claim and returns them with their funding's ledger row
 * (one batch).
 */
export async function claimDuePayments(
  d1: D1Database,
  claimId: string,
  nowMs: number,
  claimMs: number,
  limit: number,
): Promise<WatchedPayment[]> {
  const claimed = `SELECT ${WATCH_COLUMNS} FROM escrow_watch w ${LEDGER_JOIN} WHERE w.claim_id = ?1 ${DUE_ORDER}`;
  return (await claimDueRows<JoinedRow>(d1, ESCROW_WATCH_TABLE, claimed, claimId, nowMs, claimMs, limit)).map(
    toWatched,
  );
}

/** Lists open, due payments without claiming them (dry run). */
export async function peekDuePayments(d1: D1Database, nowMs: number, limit: number): Promise<WatchedPayment[]> {
  const { results } = await d1
    .prepare(
      `SELECT ${WATCH_COLUMNS} FROM escrow_watch ` +
        `w ${LEDGER_JOIN} WHERE w.payment_pda IN (${dueKeysSql(ESCROW_WATCH_TABLE)}) ${DUE_ORDER}`,
    )
    .bind(nowMs, limit)
    .all<JoinedRow>();
  return results.map(toWatched);
}
