import type { Config } from "../../platform/config/load-config";
import type { SettleOutcome } from "../../settlement/settle-engine";
import { readExposureFigures } from "../../store/fee-payer-exposure";
import type { PaymentRejection } from "../../x402/payment-verdict";
import { lastFeePayerBalance } from "../fee-payer-balance";
import { LAMPORTS_PER_SIGNATURE, networkFeeOf } from "../network-fee";
import type { DecodedTransaction } from "../wire-transaction";
import { bookExposure, type ExposureKind, type ExposureRail, settleExposure } from "./budget";
import { exposureCapRefusal, spentLimits } from "./caps";

/**
 * What a settle puts out beyond the seller's base network fee, booked in the exposure budget before the payment is
 * sent: the priority fee (compute unit price × limit) the fee payer pays on the buyer's transaction, and a sponsored
 * escrow funding's whole fee. Booked per buyer wallet and seller against the daily spend caps; a refusal answers
 * before anything reaches the cluster, with the cap's own reason.
 *
 * Hot path: no RPC (the minimum is checked against the isolate's balance reading when it has one, else the settle
 * floor alone decides), and one D1 round trip only for a settle that books something: a priority fee above
 * PRIORITY_FEE_BOOKED_ABOVE_LAMPORTS, or a sponsored funding. The common settle (the recommended unit price of
 * 1 micro-lamport pays ≤ 1.4 lamports) books nothing and makes no extra round trip.
 */

/** Priority fees up to this many lamports (a fifth of one signature's base fee) are not booked: below it a booking costs more than it guards. */
export const PRIORITY_FEE_BOOKED_ABOVE_LAMPORTS = 1_000n;

/** The priority fee of `tx`: its fee above the base fee of its signatures. */
export function priorityFeeOf(tx: Pick<DecodedTransaction, "numRequiredSignatures" | "instructions">): bigint {
  return networkFeeOf(tx) - BigInt(tx.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE;
}

export interface SettleSpend {
  rail: ExposureRail;
  kind: Extract<ExposureKind, "priority_fee" | "sponsored_funding">;
  /** The payment's ledger key: the booking's own key, so a retry of the same payment books once. */
  messageHash: string;
  payer: string;
  /** The seller it serves. */
  seller: string;
  lamports: bigint;
}

/** Books a settle's spend (see above). `bookingId` null: nothing needed booking. */
export async function bookSettleSpend(
  config: Config,
  db: D1Database,
  spend: SettleSpend,
): Promise<{ ok: true; bookingId: string | null } | PaymentRejection> {
  const threshold = spend.kind === "priority_fee" ? PRIORITY_FEE_BOOKED_ABOVE_LAMPORTS : 0n;
  if (spend.lamports <= threshold) return { ok: true, bookingId: null };
  const bookingId = `${spend.kind}:${spend.messageHash}`;
  const booked = await bookExposure(
    config,
    db,
    {
      bookingId,
      rail: spend.rail,
      kind: spend.kind,
      payer: spend.payer,
      payTo: spend.seller,
      lamports: spend.lamports,
    },
    { balanceLamports: lastFeePayerBalance(config)?.lamports ?? null },
  );
  return booked.ok ? { ok: true, bookingId } : booked;
}

/**
 * After the settle: a payment the cluster never accepted (a refusal without a signature) spent nothing, so its booking
 * is voided after the response. One landed, failed on chain or pending keeps it: its fee is (or may be) paid.
 */
export function voidUnsentSettleSpend(db: D1Database, bookingId: string | null, outcome: SettleOutcome): SettleOutcome {
  const s = outcome.settlement;
  if (bookingId === null || s.ok || "pending" in s || s.signature !== undefined) return outcome;
  return { ...outcome, afterResponse: [...outcome.afterResponse, settleExposure(db, bookingId, "voided")] };
}

/**
 * /verify's look at the caps `spend` would be booked under at settle (read only, one D1 query, and only when the settle
 * would book it): the refusal the settle would answer, or null. A spend already booked (a retry) is not refused.
 */
export async function settleSpendRefusal(
  config: Config,
  db: D1Database,
  spend: SettleSpend,
  nowMs = Date.now(),
): Promise<PaymentRejection | null> {
  const threshold = spend.kind === "priority_fee" ? PRIORITY_FEE_BOOKED_ABOVE_LAMPORTS : 0n;
  if (spend.lamports <= threshold) return null;
  const limits = spentLimits(config.feePayerBudget, nowMs);
  const [figures, booked] = await Promise.all([
    readExposureFigures(db, { payer: spend.payer, payTo: spend.seller }, limits),
    db
      .prepare("SELECT 1 FROM fee_payer_exposure WHERE booking_id = ? AND state IN ('held', 'spent')")
      .bind(`${spend.kind}:${spend.messageHash}`)
      .first(),
  ]);
  if (booked) return null;
  return exposureCapRefusal(figures, limits, spend.lamports, { payer: spend.payer, payTo: spend.seller });
}
