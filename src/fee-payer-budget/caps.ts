import type { Address } from "@solana/kit";
import type { Config, FeePayerBudgetCaps } from "../config/load-config";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../solana/token-programs";
import type { ExposureFigures, HeldLimits, SpentLimits, UptoOpenFigures, UptoOpenLimits } from "../store/fee-payer-exposure";
import { rejection, type PaymentRejection } from "../x402/payment-verdict";
import type { FeePayerBudgetRejectionReason } from "../x402/rejection-reasons";

/**
 * The exposure budget's rules (pure): what an upto open fronts, the limits a booking is checked against, and the
 * refusal that names the cap a booking would pass. The SQL that applies them is src/store/fee-payer-exposure.ts.
 */

/** What the fee payer puts out. `rent_held` is counted while out; the others count against the daily caps. */
export type ExposureKind =
  /** Rent fronted and expected back (an account the facilitator closes later). */
  | "rent_held"
  /** Rent left behind for good (a just-in-time vault, a token account a payout creates). */
  | "rent_spent"
  /** What the fee payer pays for a buyer's sponsored escrow funding. */
  | "sponsored_funding"
  /** A keeper's or a sweep's own transaction fee. */
  | "network_fee"
  /** A priority fee the facilitator chose to pay on its own transaction. */
  | "priority_fee";

/** The rail (or job) a spend serves. */
export type ExposureRail = "exact" | "sla-escrow" | "upto" | "sweep";

/** Rent-exempt lamports, (128 + size) × 6,960: the Channel account (256 bytes) and its escrow token account. */
export const UPTO_CHANNEL_RENT_LAMPORTS = 2_672_640n;
/** An SPL Token account (165 bytes). */
export const SPL_TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
/** A Token-2022 associated token account (170 bytes: the ImmutableOwner extension the ATA program adds). */
export const TOKEN_2022_TOKEN_ACCOUNT_RENT_LAMPORTS = 2_074_080n;

/** The rent an upto Open makes the fee payer front: the channel account and its escrow token account. */
export function uptoOpenRentLamports(tokenProgram: Address): bigint {
  return UPTO_CHANNEL_RENT_LAMPORTS + (tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? TOKEN_2022_TOKEN_ACCOUNT_RENT_LAMPORTS : SPL_TOKEN_ACCOUNT_RENT_LAMPORTS);
}

/** The window of SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR. */
export const OPENS_WINDOW_MS = 3_600_000;
/** The window of the daily spend caps. */
export const SPEND_WINDOW_MS = 86_400_000;

const BPS = 10_000n;

/** All the rent the fee payer may have out: SVC_FEE_PAYER_MAX_RENT_SHARE_BPS of its current balance. */
export function totalRentLimitLamports(caps: FeePayerBudgetCaps, balanceLamports: bigint): bigint {
  return (balanceLamports * BigInt(caps.rentShareBps)) / BPS;
}

/**
 * Fronting `lamports` must leave the fee payer at or above SVC_FEE_PAYER_MIN_LAMPORTS, the floor below which every
 * optional spender stops, so rent never starves the keepers that bring rent back, nor the exact rail's settles.
 */
export function belowMinimumRefusal(config: Config, balanceLamports: bigint, lamports: bigint, payer: string | null): PaymentRejection | null {
  const minimum = config.feePayerFloors.minLamports;
  if (balanceLamports - lamports >= minimum) return null;
  return rejection(
    "fee_payer_below_minimum",
    `The facilitator's fee payer holds ${balanceLamports} lamports; fronting ${lamports} more would take it below SVC_FEE_PAYER_MIN_LAMPORTS (${minimum}). Nothing was signed; retry later.`,
    { code: "SERVICE_UNAVAILABLE", ...(payer ? { payer } : {}) },
  );
}

export function uptoOpenLimits(caps: FeePayerBudgetCaps, balanceLamports: bigint, nowMs: number): UptoOpenLimits {
  return {
    channelsPerPayer: caps.uptoChannelsPerPayer,
    channelsPerPayTo: caps.uptoChannelsPerPayTo,
    opensPerPayerSince: caps.uptoOpensPerPayerPerHour,
    opensSinceMs: nowMs - OPENS_WINDOW_MS,
    ...heldLimits(caps, balanceLamports),
  };
}

export function heldLimits(caps: FeePayerBudgetCaps, balanceLamports: bigint): HeldLimits {
  return { rentPerPayerLamports: caps.rentPerPayerLamports, rentPerPayToLamports: caps.rentPerPayToLamports, totalRentLamports: totalRentLimitLamports(caps, balanceLamports) };
}

export function spentLimits(caps: FeePayerBudgetCaps, nowMs: number): SpentLimits {
  return {
    sinceMs: nowMs - SPEND_WINDOW_MS,
    spendPerPayerLamports: caps.spendPerPayerPerDayLamports,
    spendPerPayToLamports: caps.spendPerPayToPerDayLamports,
    spendTotalLamports: caps.spendPerDayLamports,
  };
}

interface Exceeded {
  reason: FeePayerBudgetRejectionReason;
  /** What is out (or was spent) and the cap, for the message. */
  used: bigint | number;
  limit: bigint | number;
  what: string;
  key: string;
  perWallet: boolean;
}

/**
 * The first cap an upto open of `rentLamports` would pass, given what the caps saw (null: none — the booking lost
 * only to a concurrent one that took the channel, or raced a cap and now fits).
 */
export function uptoCapRefusal(figures: UptoOpenFigures, limits: UptoOpenLimits, rentLamports: bigint, payer: string): PaymentRejection | null {
  const checks: (Exceeded | null)[] = [
    figures.payerChannels >= limits.channelsPerPayer
      ? { reason: "upto_open_channels_per_payer_exceeded", used: figures.payerChannels, limit: limits.channelsPerPayer, what: "open upto channels of this buyer wallet", key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER", perWallet: true }
      : null,
    figures.payerOpensSince >= limits.opensPerPayerSince
      ? { reason: "upto_opens_per_payer_per_hour_exceeded", used: figures.payerOpensSince, limit: limits.opensPerPayerSince, what: "upto channel opens of this buyer wallet in the last hour", key: "SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR", perWallet: true }
      : null,
    figures.payerRentLamports + rentLamports > limits.rentPerPayerLamports
      ? { reason: "fee_payer_rent_per_payer_exceeded", used: figures.payerRentLamports, limit: limits.rentPerPayerLamports, what: "lamports of rent the fee payer has out for this buyer wallet", key: "SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS", perWallet: true }
      : null,
    figures.payToChannels >= limits.channelsPerPayTo
      ? { reason: "upto_open_channels_per_pay_to_exceeded", used: figures.payToChannels, limit: limits.channelsPerPayTo, what: "open upto channels paying this payTo", key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO", perWallet: true }
      : null,
    figures.payToRentLamports + rentLamports > limits.rentPerPayToLamports
      ? { reason: "fee_payer_rent_per_pay_to_exceeded", used: figures.payToRentLamports, limit: limits.rentPerPayToLamports, what: "lamports of rent the fee payer has out for this payTo", key: "SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS", perWallet: true }
      : null,
    figures.totalRentLamports + rentLamports > limits.totalRentLamports
      ? { reason: "fee_payer_rent_share_exceeded", used: figures.totalRentLamports, limit: limits.totalRentLamports, what: "lamports of rent the fee payer has out in total", key: "SVC_FEE_PAYER_MAX_RENT_SHARE_BPS of its balance", perWallet: false }
      : null,
  ];
  const exceeded = checks.find((c) => c !== null);
  return exceeded ? refusalOf(exceeded, `This upto deposit's channel would have the fee payer front ${rentLamports} lamports of rent`, payer) : null;
}

/** The first cap a booking of `lamports` would pass (held: rent out; spent: the last 24 h). */
export function exposureCapRefusal(figures: ExposureFigures, limits: HeldLimits | SpentLimits, lamports: bigint, who: { payer: string | null; payTo: string | null }): PaymentRejection | null {
  const held = !("sinceMs" in limits);
  const [payerMax, payToMax, totalMax] = held
    ? [limits.rentPerPayerLamports, limits.rentPerPayToLamports, limits.totalRentLamports]
    : [limits.spendPerPayerLamports, limits.spendPerPayToLamports, limits.spendTotalLamports];
  const out = held ? "of rent the fee payer has out" : "the fee payer spent in the last 24 h";
  const checks: (Exceeded | null)[] = [
    who.payer !== null && figures.payerLamports + lamports > payerMax
      ? held
        ? { reason: "fee_payer_rent_per_payer_exceeded", used: figures.payerLamports, limit: payerMax, what: `lamports ${out} for this buyer wallet`, key: "SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS", perWallet: true }
        : { reason: "fee_payer_spend_per_payer_exceeded", used: figures.payerLamports, limit: payerMax, what: `lamports ${out} for this buyer wallet`, key: "SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS", perWallet: true }
      : null,
    who.payTo !== null && figures.payToLamports + lamports > payToMax
      ? held
        ? { reason: "fee_payer_rent_per_pay_to_exceeded", used: figures.payToLamports, limit: payToMax, what: `lamports ${out} for this payTo`, key: "SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS", perWallet: true }
        : { reason: "fee_payer_spend_per_pay_to_exceeded", used: figures.payToLamports, limit: payToMax, what: `lamports ${out} for this payTo`, key: "SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS", perWallet: true }
      : null,
    figures.totalLamports + lamports > totalMax
      ? held
        ? { reason: "fee_payer_rent_share_exceeded", used: figures.totalLamports, limit: totalMax, what: `lamports ${out} in total`, key: "SVC_FEE_PAYER_MAX_RENT_SHARE_BPS of its balance", perWallet: false }
        : { reason: "fee_payer_spend_per_day_exceeded", used: figures.totalLamports, limit: totalMax, what: `lamports ${out} in total`, key: "SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS", perWallet: false }
      : null,
  ];
  const exceeded = checks.find((c) => c !== null);
  return exceeded ? refusalOf(exceeded, `This would have the fee payer put out ${lamports} more lamports`, who.payer) : null;
}

/** A cap of one wallet answers 429 (that wallet waits); a cap of the fee payer as a whole 503 (everyone waits). */
function refusalOf(exceeded: Exceeded, what: string, payer: string | null): PaymentRejection {
  const when = exceeded.perWallet ? "retry once some of it is back" : "retry later";
  return rejection(exceeded.reason, `${what}, but ${exceeded.used} ${exceeded.what} leave no room for it under this facilitator's cap (${exceeded.key}: ${exceeded.limit}); nothing was signed, ${when}.`, {
    code: exceeded.perWallet ? "RATE_LIMITED" : "SERVICE_UNAVAILABLE",
    ...(payer ? { payer } : {}),
  });
}
