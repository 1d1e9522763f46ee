import { getPublicKeyFromAddress, signBytes, verifySignature, type Address, type SignatureBytes } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import type { Config } from "../../config/load-config";
import { decodeChannel, CHANNEL_STATUS } from "../../programs/payment-channels/accounts";
import { encodeVoucherMessage, type Voucher } from "../../programs/payment-channels/voucher";
import { fetchAccounts } from "../../solana/accounts";
import { getLatestBlockhash } from "../../solana/blockhash";
import { signFacilitatorTransaction } from "../../solana/facilitator-transaction";
import { decodeWireTransaction, type DecodedTransaction } from "../../solana/wire-transaction";
import { toHex } from "../../solana/bytes";
import { rejection, type PaymentRejection } from "../../x402/payment-verdict";
import type { UptoPayload } from "../../x402/schemas";
import type { ChannelTerms } from "./channel-terms";
import { payoutAccountProblem } from "./payout-account";
import { channelPaysTo, claimComputeBudget, distributeInstruction, settleAndSealInstructions, signatureBytes } from "./channel-close";

/**
 * The claim of an upto payment (or its zero-amount cancel): the voucher that authorizes the charge, and the one
 * transaction the facilitator signs for it — [compute budget, Ed25519 voucher proof, SettleAndSeal, Distribute].
 * The facilitator builds this transaction itself, so its fee payer appears only as payee (the signer SettleAndSeal
 * requires) and rent payer (which receives the escrow's rent back).
 */

export interface ClaimVoucher {
  voucher: Voucher;
  signer: Address;
  signature: Uint8Array;
}

/**
 * The voucher for `amount`: the seller's own (payload.voucherSignature, checked here against payload.authorizedSigner
 * before anything is signed), or — delegated mode — one this facilitator's authorizer signs for a caller that proved
 * it is the seller's server (the bearer token). Without either nobody may settle, not even a zero-amount cancel:
 * otherwise the buyer could cancel its own payment after being served.
 */
export async function claimVoucher(
  config: Config,
  payload: UptoPayload,
  terms: ChannelTerms,
  amount: bigint,
  callerCredential: string | null,
): Promise<ClaimVoucher | PaymentRejection> {
  const payer = payload.from;
  const voucher: Voucher = { channelId: payload.channelId as Address, cumulativeAmount: amount, expiresAt: BigInt(payload.expiresAt) };
  const message = encodeVoucherMessage(voucher) as Uint8Array<ArrayBuffer>;
  if (payload.voucherSignature !== undefined) {
    const signature = signatureBytes(payload.voucherSignature);
    const valid = signature !== null && (await verifyVoucherSignature(payload.authorizedSigner as Address, signature, message));
    if (!valid) {
      return rejection("invalid_upto_svm_payload_voucher_signature", `payload.voucherSignature is not ${payload.authorizedSigner}'s signature over the voucher for ${amount} on channel ${payload.channelId}`, { payer });
    }
    return { voucher, signer: payload.authorizedSigner as Address, signature: signature! };
  }
  const delegated = config.upto.delegated;
  if (!delegated) return rejection("invalid_upto_svm_authorizer_not_configured", "The claim carries no voucherSignature and this facilitator holds no receiver authorizer key", { payer });
  if (!terms.delegated || payload.authorizedSigner !== delegated.authorizer.address) {
    return rejection("invalid_upto_svm_authorizer_address_mismatch", "The claim carries no voucherSignature and its authorizer is not this facilitator's", { payer });
  }
  if (!isDelegatedCaller(config, callerCredential)) {
    return rejection("invalid_upto_svm_delegated_settle_unauthenticated", "A delegated claim needs the seller's bearer token in the Authorization header", { payer });
  }
  const signature = new Uint8Array(await signBytes(delegated.authorizer.keyPair.privateKey, message));
  return { voucher, signer: delegated.authorizer.address, signature };
}

async function verifyVoucherSignature(signer: Address, signature: Uint8Array, message: Uint8Array<ArrayBuffer>): Promise<boolean> {
  try {
    return await verifySignature(await getPublicKeyFromAddress(signer), signature as SignatureBytes, message);
  } catch {
    return false;
  }
}

/** Constant-time comparison of the caller's bearer token with the configured one. */
export function isDelegatedCaller(config: Config, callerCredential: string | null): boolean {
  const expected = config.upto.delegated?.settleToken;
  if (!expected || callerCredential === null) return false;
  const a = new TextEncoder().encode(callerCredential);
  const b = new TextEncoder().encode(expected);
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i] ?? 0) ^ b[i]!;
  return difference === 0;
}

export interface SignedClaim {
  tx: DecodedTransaction;
  messageHash: string;
  signature: string;
  wireBase64: string;
}

/**
 * Reads the channel and payTo's token account, checks it is the open channel this payment describes (parties, mint,
 * ceiling, grace period, split), that the voucher can still move its watermark and that the program would pay the
 * charge into payTo's account (not its treasury), then builds and signs the claim on a fresh blockhash.
 */
export async function buildSignedClaim(
  config: Config,
  payload: UptoPayload,
  terms: ChannelTerms,
  line: { payTo: Address; mint: Address; tokenProgram: Address },
  claim: ClaimVoucher,
): Promise<SignedClaim | PaymentRejection> {
  const { payTo, mint, tokenProgram } = line;
  const payer = payload.from;
  const channelId = payload.channelId as Address;
  const [{ payTokenAccount, accounts }, latest] = await Promise.all([
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram }).then(async ([payTokenAccount]) => ({ payTokenAccount, accounts: await fetchAccounts(config, [channelId, payTokenAccount]) })),
    getLatestBlockhash(config),
  ]);
  const account = accounts.get(channelId);
  const channel = account && account.owner === config.programs.paymentChannels ? decodeChannel(account.data) : null;
  const refused = (message: string) => rejection("invalid_upto_svm_channel_state", message, { payer });
  if (!channel) return refused(`Channel ${channelId} does not exist (any more)`);
  if (channel.status !== CHANNEL_STATUS.OPEN) return refused(`Channel ${channelId} is not open (status ${channel.status}); it was already sealed`);
  const fee = config.feePayer.address;
  if (channel.payee !== fee || channel.rentPayer !== fee) return refused(`Channel ${channelId} was not opened with this facilitator as payee and rent payer`);
  if (channel.payer !== payer) return refused(`Channel ${channelId} belongs to payer ${channel.payer}, not ${payer}`);
  if (channel.mint !== mint) return refused(`Channel ${channelId} holds ${channel.mint}, not the requirement's asset ${mint}`);
  if (channel.authorizedSigner !== terms.receiverAuthorizer) return refused(`Channel ${channelId}'s voucher key is ${channel.authorizedSigner}, not extra.receiverAuthorizer`);
  if (channel.deposit !== BigInt(payload.maxAmount)) return refused(`Channel ${channelId} holds a deposit of ${channel.deposit}, not payload.maxAmount ${payload.maxAmount}`);
  if (channel.gracePeriod !== terms.withdrawDelay) return refused(`Channel ${channelId}'s grace period ${channel.gracePeriod} is not extra.withdrawDelay ${terms.withdrawDelay}`);
  if (!(await channelPaysTo(channel, payTo))) return refused(`Channel ${channelId} does not pay its settled amount to payTo ${payTo}`);
  const amount = claim.voucher.cumulativeAmount;
  if (amount > channel.deposit) {
    return rejection("invalid_upto_svm_payload_settlement_exceeds_amount", `The charge ${amount} exceeds the channel's deposit ${channel.deposit}`, { payer });
  }
  if (amount > 0n && amount <= channel.settled) return refused(`Channel ${channelId} has already settled ${channel.settled}; a voucher must raise it`);
  const payout = amount > 0n ? payoutAccountProblem(accounts.get(payTokenAccount) ?? null, { owner: payTo, mint, tokenProgram }) : null;
  if (payout) {
    return rejection(
      "invalid_upto_svm_payout_account_unusable",
      `payTo's token account ${payTokenAccount} ${payout}, so the payment-channels program would pay the ${amount} claimed to its treasury instead of ${payTo}; ` +
        "fix the account (create it, thaw it) and claim again before the payment expires",
      { payer },
    );
  }

  const instructions = [
    ...claimComputeBudget(config),
    ...settleAndSealInstructions(config, channelId, amount > 0n ? claim : null),
    await distributeInstruction(config, channelId, channel, payTo, tokenProgram),
  ];
  const signed = await signFacilitatorTransaction(config, latest, instructions);
  const decoded = decodeWireTransaction(signed.wireBase64);
  if (!decoded.ok) throw new Error(`the facilitator's own claim transaction does not decode: ${decoded.message}`);
  const messageHash = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", decoded.tx.messageBytes as Uint8Array<ArrayBuffer>)));
  return { tx: decoded.tx, messageHash, signature: signed.signature, wireBase64: signed.wireBase64 };
}
