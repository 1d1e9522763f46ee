/**
 * The fee payer's exposure budget (issue 32 §1): every lamport the fee payer puts out beyond the network fee of a
 * payment it settles for a seller is booked here — per buyer wallet (`payer`), per `payTo`/seller and in total —
 * against the operator's caps (config `feePayerBudget`, keys SVC_FEE_PAYER_MAX_*, and a rail's own caps, README
 * "Money rules"). A spend that would pass a cap is refused, before anything is signed, with its own reason
 * (x402/rejection-reasons.ts `FeePayerBudgetRejectionReason`, or the rail's): 429 for a cap of one wallet, 503 for
 * the fee payer's.
 *
 * Two families of spend:
 * - held (`rent_held`): rent fronted and expected back. Counted while out against
 *   SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS,
 *   SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS and SVC_FEE_PAYER_MAX_RENT_SHARE_BPS of the fee payer's current balance.
 * - spent (`rent_spent`, `sponsored_funding`, `network_fee`, `priority_fee`): gone for good. Counted for a rolling 24 h
 *   against SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS, SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS and
 *   SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS.
 * Every booking must also leave the fee payer at or above SVC_FEE_PAYER_MIN_LAMPORTS (`fee_payer_below_minimum`).
 * A booking and its caps are one D1 statement (or batch): concurrent bookings never both pass a cap.
 *
 * The API:
 *
 *   feePayerBalanceForBudget(config): Promise<bigint>
 *     The balance the share and the minimum are computed from: the isolate's reading when younger than 60 s (no RPC),
 *     else one getBalance. Start it early (in parallel with other reads) and pass the result on.
 *
 * bookExposure(config, db, booking, { balanceLamports?, nowMs?, uncapped? }): Promise<{ ok: true } | PaymentRejection>
 * (balanceLamports null, spent bookings only: no reading at hand, the minimum is left to the settle floor — no RPC)
 * booking = { bookingId, rail, kind, payer, payTo, lamports } (ExposureBooking below). Call it BEFORE signing the
 * transaction that spends. `bookingId` is the spend's own stable key (e.g. `jit_vault:<vault>`,
 * `payout_ata:<owner>:<mint>:<UTC day>`): booking it again is a no-op that answers ok, so a retry never counts twice
 * and "at most once per recipient per period" is a key with the period in it. `payer`/`payTo` null: not capped on that
 * side (an operator's own job has neither). `uncapped`: counted but never refused, for the fee of a keeper step that
 * returns rent (it brings back far more than it costs; refusing it would starve the fee payer of its refill).
 *
 *   trimExposure(db, bookingId, lamports)
 *     Lowers a live booking to what was really spent (a run's steps refused at preflight paid nothing); 0 voids it.
 *
 *   settleExposure(db, bookingId, outcome): Promise<boolean>
 *     Ends a booking: "voided" (the transaction never reached the cluster, or failed without moving it), "returned"
 *     (held rent came back, e.g. the account was closed to the fee payer), "spent" (held rent is lost for good: it
 *     then counts against the daily caps from that moment). Only a live booking moves; returns whether it did.
 *
 *   Rent a rail keeps on its own rows (`RailRentRows`, each rail's `exposure` port, which `config.railRentRows` lists
 *   for the rails the configuration was built over) counts in every held booking's caps; such a rail books its rows
 *   under the same caps itself (with `heldLimits`, `belowMinimumRefusal` and store/fee-payer-exposure.ts'
 *   `rentOutFor`), one D1 batch with the row's first write.
 *
 *   exposureHealth (./report.ts): what /health shows — rent out and spent by rail, and each cap's headroom.
 */
import type { Config } from "../../platform/config/load-config";
import { bookExposureWithinCaps, settleExposureRow, trimExposureRow } from "../../store/fee-payer-exposure";
import type { ExposureEnd } from "../../store/states";
import type { PaymentRejection } from "../../x402/payment-verdict";
import { readFeePayerBalance } from "../fee-payer-balance";
import { rereadLowBalance, SETTLE_BALANCE_MAX_AGE_MS } from "../fee-payer-floor";
import {
  belowMinimumRefusal,
  type ExposureKind,
  type ExposureRail,
  exposureCapRefusal,
  heldLimits,
  SPEND_WINDOW_MS,
  spentLimits,
} from "./caps";

export type { ExposureKind, ExposureRail } from "./caps";

/** One spend to book (any but rent a rail keeps on its own rows). */
export interface ExposureBooking {
  /** The spend's own stable key: the same key books once. */
  bookingId: string;
  rail: ExposureRail;
  kind: ExposureKind;
  /** The buyer wallet whose payment caused it, or null. */
  payer: string | null;
  /** The payTo / seller it serves, or null. */
  payTo: string | null;
  lamports: bigint;
}

/**
 * The fee payer's balance for the budget's share and minimum: the isolate's reading younger than 60 s, else one
 * getBalance; a reading that would refuse fronting `lamports` (below SVC_FEE_PAYER_MIN_LAMPORTS after it) is read again
 * first, the settle floor's way (`rereadLowBalance`), so a top-up counts within seconds here too.
 */
export async function feePayerBalanceForBudget(config: Config, lamports = 0n): Promise<bigint> {
  const reading = await readFeePayerBalance(config, SETTLE_BALANCE_MAX_AGE_MS);
  if (reading.lamports - lamports >= config.feePayerFloors.minLamports) return reading.lamports;
  return (await rereadLowBalance(config, reading)).lamports;
}

export async function bookExposure(
  config: Config,
  db: D1Database,
  booking: ExposureBooking,
  options: { balanceLamports?: bigint | null; nowMs?: number; uncapped?: boolean } = {},
): Promise<{ ok: true } | PaymentRejection> {
  if (booking.lamports <= 0n) return { ok: true };
  const nowMs = options.nowMs ?? Date.now();
  const held = booking.kind === "rent_held";
  const row = { ...booking, state: held ? "held" : "spent", feePayer: config.feePayer.address } as const;
  if (options.uncapped) {
    // Counted, never refused: a step that brings the fee payer back more than it costs (see bookExposure's doc).
    const limits = held ? uncappedHeldLimits() : { ...uncappedHeldLimitsAsSpent(), sinceMs: nowMs - SPEND_WINDOW_MS };
    await bookExposureWithinCaps(db, row, limits, nowMs, config.railRentRows);
    return { ok: true };
  }
  // null (a spent booking on the settle hot path without a balance reading yet): the settle floor alone guards the
  // minimum.
  const balance =
    options.balanceLamports === null && !held
      ? null
      : (options.balanceLamports ?? (await feePayerBalanceForBudget(config)));
  const low = balance === null ? null : belowMinimumRefusal(config, balance, booking.lamports, booking.payer);
  if (low) return low;
  const limits = held ? heldLimits(config.feePayerBudget, balance!) : spentLimits(config.feePayerBudget, nowMs);
  const { booked, figures } = await bookExposureWithinCaps(db, row, limits, nowMs, config.railRentRows);
  if (booked) return { ok: true };
  return exposureCapRefusal(figures, limits, booking.lamports, booking) ?? unexplained(booking.bookingId);
}

export function settleExposure(
  db: D1Database,
  bookingId: string,
  outcome: ExposureEnd,
  nowMs = Date.now(),
): Promise<boolean> {
  return settleExposureRow(db, bookingId, outcome, nowMs);
}

/**
 * Lowers a live booking to what was really put out (e.g. a run booked every step's fee and preflight refused some:
 * those paid nothing); 0 voids it. Never raises a booking (that would pass its caps unchecked).
 */
export function trimExposure(
  db: D1Database,
  bookingId: string,
  lamports: bigint,
  nowMs = Date.now(),
): Promise<boolean> {
  return lamports <= 0n
    ? settleExposureRow(db, bookingId, "voided", nowMs)
    : trimExposureRow(db, bookingId, lamports, nowMs);
}

const NO_LIMIT = 1n << 62n;
const uncappedHeldLimits = () => ({
  rentPerPayerLamports: NO_LIMIT,
  rentPerPayToLamports: NO_LIMIT,
  totalRentLamports: NO_LIMIT,
});
const uncappedHeldLimitsAsSpent = () => ({
  spendPerPayerLamports: NO_LIMIT,
  spendPerPayToLamports: NO_LIMIT,
  spendTotalLamports: NO_LIMIT,
});

/**
 * A refused write whose figures pass every cap: the write and the figures are one transaction, so this is a bug, not
 * a race. Nothing was signed; the caller's error handling answers it (500) rather than a made-up reason.
 */
function unexplained(bookingId: string): never {
  throw new Error(`exposure budget: booking ${bookingId} was refused although no cap is exceeded`);
}
