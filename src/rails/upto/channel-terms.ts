import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { type PaymentRejection, type RejectionReason, rejection } from "../../x402/payment-verdict";
import type { PaymentRequirements } from "../../x402/schemas";
import type { UptoPayload } from "./payload";
import { BPS_DENOMINATOR, type DistributionEntry } from "./program/instructions";

/** Seconds of clock skew allowed between the buyer and this facilitator (the official facilitator's 60). */
export const EXPIRES_AT_CLOCK_SKEW_SECONDS = 60;

/**
 * The channel an `upto` line asks for, read from its requirements the way the official client builds it
 * (`resolveUptoSvmPaymentChannelConfig`): the facilitator key is fee payer, rent payer and payee (its share 0), the
 * voucher key is `extra.receiverAuthorizer`, the grace period `extra.withdrawDelay`, and the one split pays all of
 * the settled amount to `payTo`.
 */
export interface ChannelTerms {
  feePayer: Address;
  receiverAuthorizer: Address;
  withdrawDelay: number;
  splits: readonly DistributionEntry[];
  /** `extra.memo` when it is a non-empty string: the open carries exactly that Memo. */
  memo: string | undefined;
  /** `extra.tokenProgram` when given (the official server sets it); otherwise the mint's owner decides. */
  tokenProgramHint: Address | undefined;
  /** True when the voucher key is this facilitator's delegated authorizer. */
  delegated: boolean;
}

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The reasons a line's channel terms are refused with. */
export const CHANNEL_TERMS_REASONS = [
  "invalid_upto_svm_payment_requirements",
  "facilitator_mismatch",
  "invalid_upto_svm_withdraw_delay_out_of_bounds",
] as const satisfies readonly RejectionReason[];
export type ChannelTermsReason = (typeof CHANNEL_TERMS_REASONS)[number];

/** Terms of the line, or the official facilitator's reasons for a line it would not serve. */
export function channelTermsOf(
  config: Config,
  requirements: PaymentRequirements,
  payer: string,
): ChannelTerms | (PaymentRejection & { reason: ChannelTermsReason }) {
  const extra = requirements.extra;
  const invalid = (message: string) => rejection("invalid_upto_svm_payment_requirements", message, { payer });
  const { feePayer, receiverAuthorizer, withdrawDelay, memo, tokenProgram } = extra;
  if (typeof feePayer !== "string" || !ADDRESS.test(feePayer))
    return invalid("extra.feePayer must be this facilitator's fee payer address (see /supported)");
  if (typeof receiverAuthorizer !== "string" || !ADDRESS.test(receiverAuthorizer))
    return invalid("extra.receiverAuthorizer must be the address that signs the seller's vouchers");
  if (typeof withdrawDelay !== "number" || !Number.isSafeInteger(withdrawDelay) || withdrawDelay <= 0)
    return invalid("extra.withdrawDelay must be an integer number of seconds greater than zero");
  if (
    tokenProgram !== undefined &&
    tokenProgram !== null &&
    tokenProgram !== "" &&
    (typeof tokenProgram !== "string" || !ADDRESS.test(tokenProgram))
  ) {
    return invalid("extra.tokenProgram must be a token program address");
  }
  if (feePayer !== config.feePayer.address) {
    return rejection(
      "facilitator_mismatch",
      `extra.feePayer ${feePayer} is not this facilitator's fee payer ${config.feePayer.address}`,
      { payer },
    );
  }
  const { minWithdrawDelaySeconds: min, maxWithdrawDelaySeconds: max } = config.upto;
  if (withdrawDelay < min || withdrawDelay > max) {
    return rejection(
      "invalid_upto_svm_withdraw_delay_out_of_bounds",
      `extra.withdrawDelay ${withdrawDelay} s is outside this facilitator's bounds [${min}, ${max}] (see /supported)`,
      { payer },
    );
  }
  return {
    feePayer: feePayer as Address,
    receiverAuthorizer: receiverAuthorizer as Address,
    withdrawDelay,
    splits: [{ recipient: requirements.payTo as Address, bps: BPS_DENOMINATOR }],
    memo: typeof memo === "string" && memo !== "" ? memo : undefined,
    tokenProgramHint: typeof tokenProgram === "string" && tokenProgram !== "" ? (tokenProgram as Address) : undefined,
    delegated: config.upto.delegated?.authorizer.address === receiverAuthorizer,
  };
}

/**
 * The payload's own rules shared by deposit and claim: the voucher key is the line's, and the payment is inside its
 * validity window, which is no longer than the line's timeout nor this facilitator's channel lifetime (the rent of a
 * channel is out until the keeper may close it, after that window).
 */
export function checkPayloadWindow(
  config: Config,
  requirements: PaymentRequirements,
  terms: ChannelTerms,
  payload: UptoPayload,
  nowSeconds: number,
): PaymentRejection | null {
  const payer = payload.from;
  if (payload.authorizedSigner !== terms.receiverAuthorizer) {
    return rejection(
      "invalid_upto_svm_payload_receiver_authorizer",
      `payload.authorizedSigner ${payload.authorizedSigner} is not ` +
        `extra.receiverAuthorizer ${terms.receiverAuthorizer}`,
      { payer },
    );
  }
  if (nowSeconds < payload.validAfter)
    return rejection(
      "invalid_upto_svm_payload_not_yet_active",
      `The payment is valid only from ${payload.validAfter} (unix seconds)`,
      { payer },
    );
  if (payload.expiresAt === 0 || nowSeconds >= payload.expiresAt)
    return rejection("invalid_upto_svm_payload_expired", `The payment expired at ${payload.expiresAt} (unix seconds)`, {
      payer,
    });
  const lifetime = config.upto.maxChannelLifetimeSeconds;
  if (
    requirements.maxTimeoutSeconds > lifetime ||
    payload.expiresAt > nowSeconds + lifetime + EXPIRES_AT_CLOCK_SKEW_SECONDS
  ) {
    return rejection(
      "invalid_upto_svm_payload_channel_lifetime_exceeded",
      `An upto payment may run at most ${lifetime} s here (maxTimeoutSeconds and expiresAt)`,
      { payer },
    );
  }
  if (payload.expiresAt > nowSeconds + requirements.maxTimeoutSeconds + EXPIRES_AT_CLOCK_SKEW_SECONDS) {
    return rejection(
      "invalid_upto_svm_payload_expires_at_mismatch",
      `expiresAt ${payload.expiresAt} is later than now + maxTimeoutSeconds`,
      { payer },
    );
  }
  return null;
}
