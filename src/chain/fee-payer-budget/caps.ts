import type { Address } from "@solana/kit";
import type { Config, FeePayerBudgetCaps } from "../../platform/config/load-config";
import type { ExposureFigures, HeldLimits, SpentLimits } from "../../store/fee-payer-exposure";
import type { PaymentFeeFigures, PaymentFeeLimits } from "../../store/payment-fee-booking";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import type { RejectionReason } from "../../x402/rejection-reasons";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../token-programs";

/**
 * The exposure budget's rules (pure): the rent of common accounts, the limits a booking is checked against, and the
 * refusal that names the cap a booking would pass (a rail with caps of its own words them with `Cap` and `refusalOf`
 * too). The SQL that applies them is src/store/fee-payer-exposure.ts.
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

/** What a spend serves, the label of its bookings: a rail's scheme name, or "sweep" for the sweep job. */
export type ExposureRail = string;

/** Rent-exempt lamports are (128 + size) × 6,960. An SPL Token account (165 bytes). */
export const SPL_TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
/** A Token-2022 associated token account (170 bytes: the ImmutableOwner extension the ATA program adds). */
export const TOKEN_2022_TOKEN_ACCOUNT_RENT_LAMPORTS = 2_074_080n;

/** universal-settle's SplitVault account (64 bytes on chain, docs/universal-settle-abi.md). */
export const SPLIT_VAULT_RENT_LAMPORTS = 1_336_320n;
/** The vault's SOL storage: a System account funded to its rent-exempt reserve (0 bytes). */
export const VAULT_SOL_STORAGE_RENT_LAMPORTS = 890_880n;

/** The rent of a token account for `tokenProgram` (SPL, or a Token-2022 ATA with ImmutableOwner). */
export function tokenAccountRentLamports(tokenProgram: Address): bigint {
  return tokenProgram === TOKEN_2022_PROGRAM_ADDRESS
    ? TOKEN_2022_TOKEN_ACCOUNT_RENT_LAMPORTS
    : SPL_TOKEN_ACCOUNT_RENT_LAMPORTS;
}

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
export function belowMinimumRefusal(
  config: Config,
  balanceLamports: bigint,
  lamports: bigint,
  payer: string | null,
): PaymentRejection | null {
  const minimum = config.feePayerFloors.minLamports;
  if (balanceLamports - lamports >= minimum) return null;
  return rejection(
    "fee_payer_below_minimum",
    `The facilitator's fee payer ` +
      `holds ${balanceLamports} lamports; ` +
      `fronting ${lamports} more would take it below SVC_FEE_PAYER_MIN_LAMPORTS ` +
      `(${minimum}). Nothing was signed; retry later.`,
    { code: "SERVICE_UNAVAILABLE", ...(payer ? { payer } : {}) },
  );
}

export function heldLimits(caps: FeePayerBudgetCaps, balanceLamports: bigint): HeldLimits {
  return {
    rentPerPayerLamports: caps.rentPerPayerLamports,
    rentPerPayToLamports: caps.rentPerPayToLamports,
    totalRentLamports: totalRentLimitLamports(caps, balanceLamports),
  };
}

/** The cap of the operator's jobs' spending: their own daily pool. */
export function spentLimits(caps: FeePayerBudgetCaps, nowMs: number): SpentLimits {
  return { sinceMs: nowMs - SPEND_WINDOW_MS, spendTotalLamports: caps.spendPerDayLamports };
}

/** The caps of what a buyer's payment costs the fee payer (src/store/payment-fee-booking.ts). */
export function paymentFeeLimits(caps: FeePayerBudgetCaps, nowMs: number): PaymentFeeLimits {
  return {
    sinceMs: nowMs - SPEND_WINDOW_MS,
    perPayerLamports: caps.spendPerPayerPerDayLamports,
    perPayToLamports: caps.spendPerPayToPerDayLamports,
    buyersPoolLamports: caps.buyerSpendPerDayLamports,
    perProvenSellerLamports: caps.provenSellerSpendPerDayLamports,
    provenSellersPoolLamports: caps.provenSellersSpendPerDayLamports,
    failuresPerPayer: caps.failuresPerPayerPerDay,
  };
}

/**
 * One cap as a refusal words it: its reason, its key, what it counts, and whether it is one wallet's (429) or the fee
 * payer's (503).
 */
export interface Cap {
  reason: RejectionReason;
  key: string;
  what: string;
  perWallet: boolean;
}

/** A cap checked: what it saw, its limit, and whether one more would pass it. */
export interface Checked extends Cap {
  used: bigint | number;
  limit: bigint | number;
  exceeded: boolean;
}

/** A count cap: one more (channel, open) must stay within it. */
export const countCheck = (cap: Cap, used: number, limit: number): Checked => ({
  ...cap,
  used,
  limit,
  exceeded: used >= limit,
});
/** A lamport cap: what is out (or spent) plus this spend must stay within it. */
export const lamportCheck = (cap: Cap, used: bigint, adding: bigint, limit: bigint): Checked => ({
  ...cap,
  used,
  limit,
  exceeded: used + adding > limit,
});

export const RENT_PER_PAYER: Cap = {
  reason: "fee_payer_rent_per_payer_exceeded",
  key: "SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS",
  what: "lamports of rent the fee payer has out for this buyer wallet",
  perWallet: true,
};
export const RENT_PER_PAY_TO: Cap = {
  reason: "fee_payer_rent_per_pay_to_exceeded",
  key: "SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS",
  what: "lamports of rent the fee payer has out for this payTo",
  perWallet: true,
};
export const RENT_SHARE: Cap = {
  reason: "fee_payer_rent_share_exceeded",
  key: "SVC_FEE_PAYER_MAX_RENT_SHARE_BPS of its balance",
  what: "lamports of rent the fee payer has out in total",
  perWallet: false,
};
const SPEND_PER_PAYER: Cap = {
  reason: "fee_payer_spend_per_payer_exceeded",
  key: "SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS",
  what: "lamports this buyer wallet's payments cost the fee payer in the last 24 h",
  perWallet: true,
};
const SPEND_PER_PAY_TO: Cap = {
  reason: "fee_payer_spend_per_pay_to_exceeded",
  key: "SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS",
  what:
    "lamports payments to this payTo cost the fee payer in the last 24 h (a seller that proves who it is gets a " +
    "quota of its own: POST /sellers/{wallet}/register with a proven origin)",
  perWallet: true,
};
const BUYER_SPEND_PER_DAY: Cap = {
  reason: "fee_payer_buyer_spend_per_day_exceeded",
  key: "SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS",
  what:
    "lamports payments to sellers that have not proven who they are cost the fee payer in the last 24 h, all " +
    "together",
  perWallet: false,
};
const PROVEN_SELLER_QUOTA: Cap = {
  reason: "fee_payer_seller_quota_exceeded",
  key: "SVC_FEE_PAYER_MAX_SPEND_PER_PROVEN_SELLER_PER_DAY_LAMPORTS",
  what: "lamports payments to this proven seller cost the fee payer in the last 24 h",
  perWallet: true,
};
const PROVEN_SELLERS_PER_DAY: Cap = {
  reason: "fee_payer_proven_sellers_spend_per_day_exceeded",
  key: "SVC_FEE_PAYER_MAX_PROVEN_SELLERS_SPEND_PER_DAY_LAMPORTS",
  what: "lamports payments to proven sellers cost the fee payer in the last 24 h, all together",
  perWallet: false,
};
const FAILURES_PER_PAYER: Cap = {
  reason: "fee_payer_failures_per_payer_exceeded",
  key: "SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY",
  what:
    "payments of this buyer wallet failed on chain in the last 24 h at the fee payer's cost or are still being " +
    "settled (each may yet fail)",
  perWallet: true,
};
const SPEND_PER_DAY: Cap = {
  reason: "fee_payer_spend_per_day_exceeded",
  key: "SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS",
  what: "lamports the operator's jobs (sweeps, keepers, just-in-time vaults) spent in the last 24 h",
  perWallet: false,
};
/**
 * The first cap a booking of `lamports` would pass (held: rent out, a side without a wallet not capped; spent: the
 * operator's jobs' daily pool).
 */
export function exposureCapRefusal(
  figures: ExposureFigures,
  limits: HeldLimits | SpentLimits,
  adding: bigint,
  who: { payer: string | null; payTo: string | null },
): PaymentRejection | null {
  const checks =
    "sinceMs" in limits
      ? [lamportCheck(SPEND_PER_DAY, figures.totalLamports, adding, limits.spendTotalLamports)]
      : [
          who.payer !== null
            ? lamportCheck(RENT_PER_PAYER, figures.payerLamports, adding, limits.rentPerPayerLamports)
            : null,
          who.payTo !== null
            ? lamportCheck(RENT_PER_PAY_TO, figures.payToLamports, adding, limits.rentPerPayToLamports)
            : null,
          lamportCheck(RENT_SHARE, figures.totalLamports, adding, limits.totalRentLamports),
        ];
  const exceeded = checks.find((c) => c?.exceeded);
  return exceeded
    ? refusalOf(exceeded, `This would have the fee payer put out ${adding} more lamports`, who.payer)
    : null;
}

/**
 * The first cap a buyer's payment costing the fee payer `adding` lamports would pass, given what the caps saw (null:
 * none — the booking is live already, a retry). Its own failures first: a buyer whose payments keep failing on chain
 * waits whatever its spend.
 */
export function paymentFeeRefusal(
  figures: PaymentFeeFigures,
  limits: PaymentFeeLimits,
  adding: bigint,
  payer: string,
): PaymentRejection | null {
  if (figures.state === "spent" || figures.state === "held") return null;
  const proven = figures.pool === "sellers";
  const exceeded = [
    countCheck(FAILURES_PER_PAYER, figures.payerFailures, limits.failuresPerPayer),
    lamportCheck(SPEND_PER_PAYER, figures.payerLamports, adding, limits.perPayerLamports),
    proven
      ? lamportCheck(PROVEN_SELLER_QUOTA, figures.sellerLamports, adding, limits.perProvenSellerLamports)
      : lamportCheck(SPEND_PER_PAY_TO, figures.sellerLamports, adding, limits.perPayToLamports),
    proven
      ? lamportCheck(PROVEN_SELLERS_PER_DAY, figures.poolLamports, adding, limits.provenSellersPoolLamports)
      : lamportCheck(BUYER_SPEND_PER_DAY, figures.poolLamports, adding, limits.buyersPoolLamports),
  ].find((c) => c.exceeded);
  return exceeded ? refusalOf(exceeded, `This payment would cost the fee payer ${adding} lamports`, payer) : null;
}

/** A cap of one wallet answers 429 (that wallet waits); a cap of a whole pool 503 (everyone in it waits). */
export function refusalOf(exceeded: Checked, what: string, payer: string | null): PaymentRejection {
  const when = exceeded.perWallet ? "retry once some of it is back" : "retry later";
  return rejection(
    exceeded.reason,
    `${what}, ` +
      `but ${exceeded.used} ${exceeded.what} leave no room for it under this facilitator's cap ` +
      `(${exceeded.key}: ${exceeded.limit}); nothing was signed, ${when}.`,
    {
      code: exceeded.perWallet ? "RATE_LIMITED" : "SERVICE_UNAVAILABLE",
      ...(payer ? { payer } : {}),
    },
  );
}
