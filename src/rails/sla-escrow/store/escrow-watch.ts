/**
 * The escrow keeper's bookkeeping in D1: one row per sla-escrow funding this facilitator settled and the cluster
 * accepted, open until the chain shows the payment released or refunded. A row is a pointer (Payment address and
 * funding signature), never a source of payment facts: the keeper reads those from the chain and checks the funding
 * against the settlement ledger. A run claims its rows (one conditional UPDATE) before reading or sending anything,
 * so two runs never act on the same payment while the claim lasts.
 */
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
  /** The chain confirmed this funding (settle success), as opposed to accepted and not confirmed yet (pending). */
  confirmed: boolean;
}

/**
 * Called by escrow settle once the cluster accepted the funding (sent, or already processed). The Payment address
 * depends on uid and bank only, so two fundings can point at one address: a confirmed funding takes the row over
 * from another one (which at most one of them can be), a merely accepted one never displaces an existing row.
 */
export async function watchAcceptedFunding(d1: D1Database, funding: AcceptedFunding, nowMs: number): Promise<void> {
  await d1
    .prepare(
      `INSERT INTO escrow_watch (payment_pda, funding_signature, funding_blockhash, sponsored_payer, state, next_check_at_ms, failures, created_at_ms, updated_at_ms)
       VALUES (?1, ?2, ?3, ?4, 'open', ?5, 0, ?5, ?5)
       ON CONFLICT (payment_pda) DO UPDATE SET funding_signature = excluded.funding_signature, funding_blockhash = excluded.funding_blockhash,
         sponsored_payer = excluded.sponsored_payer, state = 'open', next_check_at_ms = excluded.next_check_at_ms, failures = 0,
         last_outcome = NULL, last_detail = NULL, updated_at_ms = excluded.updated_at_ms
       WHERE ?6 AND escrow_watch.funding_signature <> excluded.funding_signature`,
    )
    .bind(
      funding.paymentPda,
      funding.fundingSignature,
      funding.fundingBlockhash,
      funding.sponsoredPayer,
      nowMs,
      funding.confirmed ? 1 : 0,
    )
    .run();
}

/** The keeper's queue (store/keeper-queue.ts): one row per payment, keyed by its address. */
export const ESCROW_WATCH_TABLE: KeeperTable = keeperTableOf(escrowWatch, {
  key: escrowWatch.paymentPda,
  claim: escrowWatch.claimId,
  claimExpires: escrowWatch.claimExpiresAtMs,
});

const WATCH_COLUMNS = `w.payment_pda AS paymentPda, w.funding_signature AS fundingSignature, w.funding_blockhash AS fundingBlockhash,
  w.sponsored_payer AS sponsoredPayer, w.failures AS failures, w.created_at_ms AS createdAtMs,
  s.message_hash AS messageHash, s.state AS ledgerState, s.scheme AS scheme, s.payer AS payer, s.asset AS asset, s.amount AS amount,
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

/** Claims up to `limit` open, due payments not held by a live claim and returns them with their funding's ledger row (one batch). */
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
      `SELECT ${WATCH_COLUMNS} FROM escrow_watch w ${LEDGER_JOIN} WHERE w.payment_pda IN (${dueKeysSql(ESCROW_WATCH_TABLE)}) ${DUE_ORDER}`,
    )
    .bind(nowMs, limit)
    .all<JoinedRow>();
  return results.map(toWatched);
}
