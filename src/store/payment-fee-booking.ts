/**
 * The SQL of a payment's booking in the exposure budget (the rules are src/chain/fee-payer-budget/payment-spend.ts):
 * what the fee payer pays when a buyer's payment lands (its network fee, base and priority, or a sponsored funding's),
 * booked as a rider of the payment's ledger claim (store/claim-riders.ts), in the claim's own D1 transaction.
 *
 * The pool is decided in the same statement: a payment to a proven seller (a registration with a proven origin, not
 * retired) comes out of that seller's own quota and the proven sellers' pool, any other out of the strangers' pool and
 * the payTo's cap; the buyer's own daily cap and its on-chain failures count across both. A pool's and a proven
 * seller's spend are read by the hour (fee_payer_spend_hours, kept by triggers); a buyer's and a stranger payTo's from
 * their own rows, which their caps keep few.
 */
import type { ClaimRiderSql, SqlValue } from "./claim-riders";
import { spentHoursSince } from "./fee-payer-exposure";
import type { ExposurePool } from "./states";

export interface PaymentFeeRow {
  bookingId: string;
  rail: string;
  kind: string;
  payer: string;
  /** The seller it serves: the merchant wallet (a vault's owner, or the wallet payTo). */
  seller: string;
  lamports: bigint;
  feePayer: string;
  /** The payment's ledger key. */
  messageHash: string;
}

/** The caps a payment's booking is checked against (lamports spent since `sinceMs`, a rolling day). */
export interface PaymentFeeLimits {
  sinceMs: number;
  perPayerLamports: bigint;
  perPayToLamports: bigint;
  buyersPoolLamports: bigint;
  perProvenSellerLamports: bigint;
  provenSellersPoolLamports: bigint;
  failuresPerPayer: number;
  /** A buyer's unresolved payments that do not count toward `failuresPerPayer` (honest concurrency). */
  inFlightPerPayer: number;
}

/** What the caps saw, per the refusal read (or /verify's look). */
export interface PaymentFeeFigures {
  pool: Extract<ExposurePool, "buyers" | "sellers">;
  payerLamports: bigint;
  /** The seller's spend in its pool: a proven seller's quota, else the payTo's cap. */
  sellerLamports: bigint;
  poolLamports: bigint;
  /** Its payments failed on chain at the fee payer's cost today, and its unresolved ones beyond the allowance. */
  payerFailures: number;
  /** The booking's own state when it exists (a retry finds its booking live). */
  state: string | null;
}

// Parameters: ?1 booking id, ?2 rail, ?3 kind, ?4 payer, ?5 seller, ?6 lamports, ?7 now, ?8 fee payer,
// ?9 message hash, ?10 start of the day counted.
const BUYER_POOLS = `pool IN ('buyers', 'sellers')`;
const POOL =
  `(CASE WHEN EXISTS (SELECT 1 FROM providers WHERE wallet_pubkey = ?5 AND proven_origin IS NOT NULL AND ` +
  `retired_at_ms IS NULL)
  THEN 'sellers' ELSE 'buyers' END)`;
const SPENT_TODAY = `state = 'spent' AND booked_at_ms >= ?10`;
const PAYER_SPENT =
  `(SELECT COALESCE(SUM(lamports), 0) FROM fee_payer_exposure WHERE payer = ?4 ` +
  `AND ${SPENT_TODAY} AND ${BUYER_POOLS})`;
/** A payTo's spend in the strangers' pool: its own rows (its cap bounds how many). */
const PAY_TO_SPENT =
  `(SELECT COALESCE(SUM(lamports), 0) FROM fee_payer_exposure WHERE pay_to = ?5 ` +
  `AND ${SPENT_TODAY} AND pool = 'buyers')`;
/** A proven seller's and a whole pool's spend: by the hour (store/fee-payer-exposure.ts spentHoursSince). */
const PROVEN_SELLER_SPENT = spentHoursSince("?10", "'seller:' || ?5");
const POOL_SPENT = (pool: "buyers" | "sellers") => spentHoursSince("?10", `'pool:${pool}'`);
/**
 * How long a claimed payment that has not resolved yet counts as one that may fail: a blockhash lives ~150 blocks
 * (60–90 s), so by then the payment has landed or never will, and a settle has answered it (or its caller went away).
 */
export const UNRESOLVED_COUNTS_FOR_MS = 120_000;
/**
 * The buyer's failures as its cap counts them: its payments whose fee the fee payer pays (their booking is spent) that
 * executed and failed on chain, plus those claimed in the last UNRESOLVED_COUNTS_FOR_MS that have not resolved yet,
 * beyond the first `inFlight` of them. Each unresolved payment may still fail, and every claim of a burst sent at once
 * comes before any of its failures is known: counting the unresolved ones beyond an allowance bounds what such a burst
 * can cost (cap + allowance fees) while a buyer's honest concurrent payments are not refused. With the ledger objects
 * D1 learns a resolution right after the answer (the mirror), so a payment that just confirmed may count for those
 * milliseconds.
 */
function payerFailures(inFlight: number): string {
  const failed =
    `s.state = 'failed' AND s.updated_at_ms >= ?10 ` + `AND COALESCE(s.error_reason, '') <> 'blockhash_expired'`;
  const unresolved = `s.state IN ('submitting', 'pending') AND s.updated_at_ms >= ?7 - ${UNRESOLVED_COUNTS_FOR_MS}`;
  // One pass over the buyer's paid-for rows counts both kinds.
  return `(SELECT COALESCE(SUM(${failed}), 0) + MAX(0, COALESCE(SUM(${unresolved}), 0) - ${literal(inFlight)})
    FROM settlements s JOIN fee_payer_exposure e ON e.settlement_hash = s.message_hash
    WHERE s.payer = ?4 AND e.state = 'spent' AND ((${failed}) OR (${unresolved})))`;
}
const LIVE = `EXISTS (SELECT 1 FROM fee_payer_exposure WHERE booking_id = ?1 AND state <> 'voided')`;

/** SQLite integers are signed 64-bit: a cap above this (an operator's "no cap") is this. */
const SQL_INTEGER_MAX = (1n << 62n) - 1n;
/** A cap as an SQL literal (caps come from the validated config, never from a caller). */
function literal(value: bigint | number): string {
  const n = BigInt(value);
  return (n > SQL_INTEGER_MAX ? SQL_INTEGER_MAX : n < 0n ? 0n : n).toString();
}

function within(limits: PaymentFeeLimits): string {
  return `(${PAYER_SPENT} + ?6 <= ${literal(limits.perPayerLamports)}
    AND ${payerFailures(limits.inFlightPerPayer)} < ${literal(limits.failuresPerPayer)}
    AND CASE p.pool
      WHEN 'sellers' THEN ${PROVEN_SELLER_SPENT} + ?6 <= ${literal(limits.perProvenSellerLamports)}
        AND ${POOL_SPENT("sellers")} + ?6 <= ${literal(limits.provenSellersPoolLamports)}
      ELSE ${PAY_TO_SPENT} + ?6 <= ${literal(limits.perPayToLamports)}
        AND ${POOL_SPENT("buyers")} + ?6 <= ${literal(limits.buyersPoolLamports)} END)`;
}

/**
 * The booking as a claim rider. `limits` null: counted, never refused (a step that completes a payment already made,
 * such as an upto claim: refusing it would keep a seller from money it was paid). A booking already live (a retry of
 * the payment) is kept as it is; a voided one is revived under the caps.
 */
export function paymentFeeRider(row: PaymentFeeRow, limits: PaymentFeeLimits | null, nowMs: number): ClaimRiderSql {
  const binds: SqlValue[] = [
    row.bookingId,
    row.rail,
    row.kind,
    row.payer,
    row.seller,
    lamportsBind(row.lamports),
    nowMs,
    row.feePayer,
    row.messageHash,
    limits?.sinceMs ?? nowMs,
  ];
  return {
    writes: [
      {
        sql:
          `INSERT INTO fee_payer_exposure (booking_id, rail, kind, payer, pay_to, lamports, state, booked_at_ms, ` +
          `updated_at_ms, fee_payer, pool, settlement_hash)
          SELECT ?1, ?2, ?3, ?4, ?5, ?6, 'spent', ?7, ?7, ?8, p.pool, ?9 FROM (SELECT ${POOL} AS pool) p
          WHERE ${LIVE} OR ${limits ? within(limits) : "?10 IS NOT NULL"}
          ON CONFLICT (booking_id) DO UPDATE SET state = 'spent', lamports = excluded.lamports, booked_at_ms = ` +
          `excluded.booked_at_ms,
            updated_at_ms = excluded.updated_at_ms, fee_payer = excluded.fee_payer, pool = excluded.pool, ` +
          `settlement_hash = excluded.settlement_hash
          WHERE fee_payer_exposure.state = 'voided'`,
        binds,
      },
    ],
    holds: { sql: LIVE, binds: [row.bookingId] },
    undo: [
      {
        sql:
          `UPDATE fee_payer_exposure SET state = 'voided', updated_at_ms = ?2
          WHERE booking_id = ?1 AND state <> 'voided' AND NOT EXISTS (SELECT 1 FROM settlements WHERE message_hash = ` +
          `?3)`,
        binds: [row.bookingId, nowMs, row.messageHash],
      },
    ],
    reads: [
      { sql: figuresSql(limits?.inFlightPerPayer ?? 0), binds: figuresBinds(row, limits?.sinceMs ?? nowMs, nowMs) },
    ],
  };
}

/** What the caps of a payment's booking see (/verify's look, and the claim's refusal read): one statement. */
export async function readPaymentFeeFigures(
  d1: D1Database,
  row: Pick<PaymentFeeRow, "bookingId" | "payer" | "seller">,
  limits: Pick<PaymentFeeLimits, "sinceMs" | "inFlightPerPayer">,
  nowMs = Date.now(),
): Promise<PaymentFeeFigures> {
  const read = await d1
    .prepare(figuresSql(limits.inFlightPerPayer))
    .bind(...figuresBinds(row, limits.sinceMs, nowMs))
    .first<Record<string, SqlValue>>();
  return paymentFeeFiguresOf(read ?? {});
}

/** The refusal read's row as figures. */
export function paymentFeeFiguresOf(row: Record<string, SqlValue>): PaymentFeeFigures {
  return {
    pool: row.pool === "sellers" ? "sellers" : "buyers",
    payerLamports: BigInt(row.payerLamports ?? 0),
    sellerLamports: BigInt(row.sellerLamports ?? 0),
    poolLamports: BigInt(row.poolLamports ?? 0),
    payerFailures: Number(row.payerFailures ?? 0),
    state: row.state === null || row.state === undefined ? null : String(row.state),
  };
}

// The figures keep the write's parameter numbers (?1 booking, ?4 payer, ?5 seller, ?7 now, ?10 since); SQLite leaves
// the others unused.
function figuresSql(inFlightPerPayer: number): string {
  return `SELECT p.pool AS pool, ${PAYER_SPENT} AS payerLamports, ${payerFailures(inFlightPerPayer)} AS payerFailures,
    CASE p.pool WHEN 'sellers' THEN ${PROVEN_SELLER_SPENT} ELSE ${PAY_TO_SPENT} END AS sellerLamports,
    CASE p.pool WHEN 'sellers' THEN ${POOL_SPENT("sellers")} ELSE ${POOL_SPENT("buyers")} END AS poolLamports,
    (SELECT state FROM fee_payer_exposure WHERE booking_id = ?1) AS state
    FROM (SELECT ${POOL} AS pool) p`;
}

function figuresBinds(
  row: Pick<PaymentFeeRow, "bookingId" | "payer" | "seller">,
  sinceMs: number,
  nowMs: number,
): SqlValue[] {
  return [row.bookingId, null, null, row.payer, row.seller, null, nowMs, null, null, sinceMs];
}

/** A booking's lamports as D1 binds them (a JavaScript number: far below 2^53 for any one payment). */
function lamportsBind(lamports: bigint): number {
  if (lamports < 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`lamports ${lamports} out of range`);
  return Number(lamports);
}
