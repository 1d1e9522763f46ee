import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../../chain/accounts";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import { payoutAccountProblem, refundRedirect } from "./payout-account";
import { CHANNEL_STATUS, type Channel } from "./program/accounts";

/**
 * Whether the facilitator signs a claim of `amount` on a channel, as pure rules over what one batched read returned:
 * the program must accept the seal (SettleAndSeal: OPEN, or CLOSING before its grace period ends — a buyer's TopUp or
 * RequestClose does not take the seller's claim away), the channel must be the one this payment opened (parties, mint,
 * voucher key, grace period, split, a deposit at least the payment's ceiling) and Distribute must pay nothing to the
 * program's treasury: neither the charge (payTo's token account) nor the buyer's refund (the buyer's token account).
 */

/** A claim on a CLOSING channel is signed only this long before its grace period ends (it must land before). */
export const CLOSING_CLAIM_MARGIN_SECONDS = 10n;

/**
 * How the claim is built. `seal`: [voucher proof, SettleAndSeal, Distribute] — the charge to payTo, the rest back to
 * the buyer, the escrow's rent to the fee payer. `settle_keeping_refund`: the buyer's token account cannot receive its
 * refund, so [voucher proof, Settle, Distribute] pays payTo now and leaves the channel open with the refund in escrow;
 * the keeper seals and refunds once the buyer's account can receive it.
 */
export type ClaimShape = "seal" | "settle_keeping_refund";

export interface ClaimFacts {
  channelId: Address;
  channel: Channel | null;
  /** The chain's clock (unix seconds), read with the channel. */
  chainUnixSeconds: bigint;
  feePayer: Address;
  payer: Address;
  mint: Address;
  receiverAuthorizer: Address;
  /** payload.maxAmount: the ceiling the buyer signed (the channel's deposit at open). */
  ceiling: bigint;
  withdrawDelay: number;
  /** The channel's committed split pays all of the settled amount to payTo. */
  splitPaysPayTo: boolean;
  payTo: Address;
  payToAccount: { address: Address; snapshot: AccountSnapshot | null };
  buyerAccount: { address: Address; snapshot: AccountSnapshot | null };
  tokenProgram: Address;
}

export function claimShape(facts: ClaimFacts, amount: bigint): { ok: true; shape: ClaimShape } | PaymentRejection {
  const { channel, channelId, payer } = facts;
  const refused = (message: string) => rejection("invalid_upto_svm_channel_state", message, { payer });
  if (!channel) return refused(`Channel ${channelId} does not exist (any more)`);
  const closing = channel.status === CHANNEL_STATUS.CLOSING;
  if (channel.status !== CHANNEL_STATUS.OPEN && !closing)
    return refused(`Channel ${channelId} is not open (status ${channel.status}); it was already sealed`);
  if (closing) {
    const graceEnds = channel.closureStartedAt + BigInt(channel.gracePeriod);
    if (facts.chainUnixSeconds + CLOSING_CLAIM_MARGIN_SECONDS >= graceEnds) {
      return refused(
        `The buyer asked to close ` +
          `channel ${channelId} and its grace period ends ` +
          `at ${graceEnds} (unix seconds, chain clock ${facts.chainUnixSeconds}); no claim can settle any more`,
      );
    }
  }
  const fee = facts.feePayer;
  if (channel.payee !== fee || channel.rentPayer !== fee)
    return refused(`Channel ${channelId} was not opened with this facilitator as payee and rent payer`);
  if (channel.payer !== payer) return refused(`Channel ${channelId} belongs to payer ${channel.payer}, not ${payer}`);
  if (channel.mint !== facts.mint)
    return refused(`Channel ${channelId} holds ${channel.mint}, not the requirement's asset ${facts.mint}`);
  if (channel.authorizedSigner !== facts.receiverAuthorizer)
    return refused(`Channel ${channelId}'s voucher key is ${channel.authorizedSigner}, not extra.receiverAuthorizer`);
  // The buyer may have topped the deposit up; the charge stays bound to the ceiling it signed (checked before).
  if (channel.deposit < facts.ceiling)
    return refused(
      `Channel ${channelId} holds a deposit of ${channel.deposit}, below payload.maxAmount ${facts.ceiling}`,
    );
  if (channel.gracePeriod !== facts.withdrawDelay)
    return refused(
      `Channel ${channelId}'s grace period ${channel.gracePeriod} is not extra.withdrawDelay ${facts.withdrawDelay}`,
    );
  if (!facts.splitPaysPayTo)
    return refused(`Channel ${channelId} does not pay its settled amount to payTo ${facts.payTo}`);
  if (amount > channel.deposit) {
    return rejection(
      "invalid_upto_svm_payload_settlement_exceeds_amount",
      `The charge ${amount} exceeds the channel's deposit ${channel.deposit}`,
      { payer },
    );
  }
  if (amount > 0n && amount <= channel.settled)
    return refused(`Channel ${channelId} has already settled ${channel.settled}; a voucher must raise it`);

  const unusable = (message: string) => rejection("invalid_upto_svm_payout_account_unusable", message, { payer });
  const payout =
    amount > 0n
      ? payoutAccountProblem(facts.payToAccount.snapshot, {
          owner: facts.payTo,
          mint: facts.mint,
          tokenProgram: facts.tokenProgram,
        })
      : null;
  if (payout) {
    return unusable(
      `payTo's token ` +
        `account ${facts.payToAccount.address} ${payout}, so the payment-channels program would pay ` +
        `the ${amount} claimed to its treasury instead of ${facts.payTo}; ` +
        "fix the account (create it, thaw it) and claim again before the payment expires",
    );
  }
  const settledAfter = amount > 0n ? amount : channel.settled;
  const redirect = refundRedirect(channel, settledAfter, facts.buyerAccount, facts.tokenProgram);
  if (!redirect) return { ok: true, shape: "seal" };
  // Settle (without the seal) is the program's only way to pay the charge and keep the refund: OPEN channels only.
  if (amount > 0n && !closing) return { ok: true, shape: "settle_keeping_refund" };
  return unusable(
    `${redirect}; ${
      amount > 0n
        ? "the channel is closing, so the charge cannot be paid without sealing " + "it"
        : "a cancel only returns the deposit"
    }: ` + "the buyer must fix the account (create it, thaw it) first; the keeper refunds it once it can",
  );
}
