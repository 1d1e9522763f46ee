import type { Address } from "@solana/kit";
import {
  type Cap,
  countCheck,
  heldLimits,
  lamportCheck,
  RENT_PER_PAY_TO,
  RENT_PER_PAYER,
  RENT_SHARE,
  refusalOf,
  tokenAccountRentLamports,
} from "../../chain/fee-payer-budget/caps";
import type { FeePayerBudgetCaps } from "../../platform/config/load-config";
import type { PaymentRejection } from "../../x402/payment-verdict";
import type { ChannelOpenCaps } from "./config";
import type { ChannelOpenFigures, ChannelOpenLimits } from "./store/channel-rent";

/**
 * The channel caps of the fee payer's exposure budget (pure): what an Open fronts, the limits it is booked under (the
 * rail's SVC_UPTO_MAX_* and the budget's rent caps) and the refusal that names the cap it would pass. The SQL that
 * applies them is ./store/channel-rent.ts.
 */

/** Rent-exempt lamports, (128 + size) × 6,960: the Channel account (256 bytes) and its escrow token account. */
export const UPTO_CHANNEL_RENT_LAMPORTS = 2_672_640n;

/** The rent an upto Open makes the fee payer front: the channel account and its escrow token account. */
export function uptoOpenRentLamports(tokenProgram: Address): bigint {
  return UPTO_CHANNEL_RENT_LAMPORTS + tokenAccountRentLamports(tokenProgram);
}

/** The window of SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR. */
export const OPENS_WINDOW_MS = 3_600_000;

export function uptoOpenLimits(
  caps: FeePayerBudgetCaps,
  openCaps: ChannelOpenCaps,
  balanceLamports: bigint,
  nowMs: number,
): ChannelOpenLimits {
  return {
    channelsPerPayer: openCaps.channelsPerPayer,
    channelsPerPayTo: openCaps.channelsPerPayTo,
    opensPerPayerSince: openCaps.opensPerPayerPerHour,
    opensSinceMs: nowMs - OPENS_WINDOW_MS,
    ...heldLimits(caps, balanceLamports),
  };
}

export const UPTO_CHANNELS_PER_PAYER: Cap = {
  reason: "upto_open_channels_per_payer_exceeded",
  key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER",
  what: "open upto channels of this buyer wallet",
  perWallet: true,
};
export const UPTO_OPENS_PER_HOUR: Cap = {
  reason: "upto_opens_per_payer_per_hour_exceeded",
  key: "SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR",
  what: "upto channel opens of this buyer wallet in the last hour",
  perWallet: true,
};
export const UPTO_CHANNELS_PER_PAY_TO: Cap = {
  reason: "upto_open_channels_per_pay_to_exceeded",
  key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO",
  what: "open upto channels paying this payTo",
  perWallet: true,
};

/**
 * The first cap an upto open of `rentLamports` would pass, given what the caps saw (null: none — the booking lost
 * only to a concurrent one that took the channel, or raced a cap and now fits).
 */
export function uptoCapRefusal(
  figures: ChannelOpenFigures,
  limits: ChannelOpenLimits,
  rentLamports: bigint,
  payer: string,
): PaymentRejection | null {
  const exceeded = [
    countCheck(UPTO_CHANNELS_PER_PAYER, figures.payerChannels, limits.channelsPerPayer),
    countCheck(UPTO_OPENS_PER_HOUR, figures.payerOpensSince, limits.opensPerPayerSince),
    lamportCheck(RENT_PER_PAYER, figures.payerRentLamports, rentLamports, limits.rentPerPayerLamports),
    countCheck(UPTO_CHANNELS_PER_PAY_TO, figures.payToChannels, limits.channelsPerPayTo),
    lamportCheck(RENT_PER_PAY_TO, figures.payToRentLamports, rentLamports, limits.rentPerPayToLamports),
    lamportCheck(RENT_SHARE, figures.totalRentLamports, rentLamports, limits.totalRentLamports),
  ].find((c) => c.exceeded);
  return exceeded
    ? refusalOf(
        exceeded,
        `This upto deposit's channel would have the fee payer front ${rentLamports} lamports of rent`,
        payer,
      )
    : null;
}
