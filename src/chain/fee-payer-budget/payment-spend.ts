import type { Config } from "../../platform/config/load-config";
import type { ClaimRider } from "../../store/claim-riders";
import { paymentFeeFiguresOf, paymentFeeRider, readPaymentFeeFigures } from "../../store/payment-fee-booking";
import type { PaymentRejection } from "../../x402/payment-verdict";
import { LAMPORTS_PER_SIGNATURE, networkFeeOf } from "../network-fee";
import type { DecodedTransaction } from "../wire-transaction";
import { paymentFeeLimits, paymentFeeRefusal } from "./caps";

/**
 * What a buyer's payment costs the fee payer, every lamport of it: the network fee of the transaction it co-signs
 * (the base fee of its signatures and its priority fee, of any size; a smart wallet's larger compute fee is in the
 * same figure), or a sponsored escrow funding's whole fee. Booked in the exposure budget per buyer wallet, per seller
 * and in a daily pool, in the payment's own ledger claim (a rider of its D1 transaction: no extra round trip), before
 * anything is sent; a cap that would be passed refuses the claim with its own reason, and nothing is signed or sent.
 *
 * The pool is the seller's: a proven seller's payments come out of its own daily quota (and the proven sellers'
 * pool), every other payment out of the strangers' pool and the payTo's cap. The operator's jobs have their own pool
 * (./budget.ts), which no payment touches. A buyer whose payments failed on chain at the fee payer's cost
 * (SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY) is refused until a day has passed; its payments still unresolved
 * count as failures until they resolve, so a burst sent at once cannot pass the cap either (at most that many of a
 * buyer's payments are in flight at once).
 *
 * The booking lives with the claim: voided only with it (the cluster never accepted the transaction, or its blockhash
 * expired unseen: store/settlements.ts `voidBookingsOfUnpaid`), never because of what a later call answers. A fee the
 * chain charged stays booked.
 *
 * API (one call per payment, in the rail's settle): `paymentSpendRider(config, spend)` into the engine's
 * `settleablePayment(…, { riders: [rider] })`. /verify's look: `paymentSpendRefusal`.
 */

export interface PaymentSpend {
  rail: string;
  kind: "payment_fee" | "sponsored_funding";
  /** The payment's ledger key: the booking's own key, so a retry of the same payment books once. */
  messageHash: string;
  payer: string;
  /** The seller it serves: the merchant wallet (a vault's owner, or a wallet payTo). */
  seller: string;
  /** What the fee payer pays when the transaction lands. */
  lamports: bigint;
  /**
   * false: counted, never refused — for a step that completes a payment already made (an upto claim: refusing it
   * would keep the seller from money the buyer deposited). Default true.
   */
  capped?: boolean;
}

/** The payment's booking as a rider of its ledger claim. */
export function paymentSpendRider(
  config: Config,
  spend: PaymentSpend,
  nowMs = Date.now(),
): ClaimRider<PaymentRejection> {
  const limits = paymentFeeLimits(config.feePayerBudget, nowMs);
  const rider = paymentFeeRider(
    {
      bookingId: bookingIdOf(spend),
      rail: spend.rail,
      kind: spend.kind,
      payer: spend.payer,
      seller: spend.seller,
      lamports: spend.lamports,
      feePayer: config.feePayer.address,
      messageHash: spend.messageHash,
    },
    spend.capped === false ? null : limits,
    nowMs,
  );
  return {
    ...rider,
    explain: ([figures]) =>
      figures ? paymentFeeRefusal(paymentFeeFiguresOf(figures), limits, spend.lamports, spend.payer) : null,
  };
}

/**
 * /verify's look at the caps `spend` would be booked under at settle (read only, one D1 query), for a payment whose
 * priority fee is above VERIFY_READS_CAPS_ABOVE_PRIORITY_LAMPORTS: the refusal the settle would answer, or null. The
 * common payment (the recommended price) is not looked at: /verify reads nothing for it, and its settle refuses it
 * with the same reason should a cap be full. A spend already booked (a retry) is not refused.
 */
export async function paymentSpendRefusal(
  config: Config,
  db: D1Database,
  spend: PaymentSpend,
  priorityFeeLamports: bigint,
  nowMs = Date.now(),
): Promise<PaymentRejection | null> {
  if (priorityFeeLamports <= VERIFY_READS_CAPS_ABOVE_PRIORITY_LAMPORTS || spend.capped === false) return null;
  const limits = paymentFeeLimits(config.feePayerBudget, nowMs);
  const figures = await readPaymentFeeFigures(
    db,
    { bookingId: bookingIdOf(spend), payer: spend.payer, seller: spend.seller },
    limits.sinceMs,
    nowMs,
  );
  return paymentFeeRefusal(figures, limits, spend.lamports, spend.payer);
}

/** /verify reads the caps only for a payment whose priority fee is above this (a fifth of one signature's base fee). */
export const VERIFY_READS_CAPS_ABOVE_PRIORITY_LAMPORTS = 1_000n;

function bookingIdOf(spend: PaymentSpend): string {
  return `${spend.kind}:${spend.messageHash}`;
}

/** The network fee the fee payer pays for `tx`: the base fee of its signatures and its priority fee. */
export function paymentFeeOf(tx: Pick<DecodedTransaction, "numRequiredSignatures" | "instructions">): bigint {
  return networkFeeOf(tx);
}

/** The priority fee of `tx`: its fee above the base fee of its signatures. */
export function priorityFeeOf(tx: Pick<DecodedTransaction, "numRequiredSignatures" | "instructions">): bigint {
  return networkFeeOf(tx) - BigInt(tx.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE;
}

/**
 * What this facilitator's fee payer sponsors, as `/supported` publishes it for the kinds whose network fee it pays
 * (decimal strings, lamports unless named): the priority fee it accepts at most (the compute unit price cap and what
 * it comes to at the compute unit limit cap), and the daily caps a buyer meets — per buyer wallet, per `payTo` of a
 * seller that has not proven who it is, per proven seller — and the buyer's payments that may fail on chain at its
 * cost. A client reads it to know what it may send before it meets a cap.
 */
export function sponsorshipPolicy(config: Config) {
  const caps = config.feePayerBudget;
  const { maxUnitPriceMicroLamports, maxUnitLimit } = config.compute;
  return {
    maxComputeUnitPrice: String(maxUnitPriceMicroLamports),
    maxPriorityFeeLamports: String((maxUnitPriceMicroLamports * BigInt(maxUnitLimit) + 999_999n) / 1_000_000n),
    perBuyerPerDayLamports: String(caps.spendPerPayerPerDayLamports),
    perPayToPerDayLamports: String(caps.spendPerPayToPerDayLamports),
    perProvenSellerPerDayLamports: String(caps.provenSellerSpendPerDayLamports),
    failedPaymentsPerBuyerPerDay: String(caps.failuresPerPayerPerDay),
  };
}
