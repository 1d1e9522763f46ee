import { type Address, getBase58Encoder, type Instruction } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "../../chain/compute-budget";
import type { Config } from "../../platform/config/load-config";
import type { Channel } from "./program/accounts";
import {
  BPS_DENOMINATOR,
  type DistributionEntry,
  encodeDistributionPreimage,
  getDistributeInstruction,
  getReclaimInstruction,
  getSealInstruction,
  getSettleAndSealInstruction,
  getSettleInstruction,
} from "./program/instructions";
import { findEventAuthorityPda } from "./program/pda";
import { encodeVoucherMessage, getEd25519VoucherInstruction, type Voucher } from "./program/voucher";

/**
 * The instructions that end a channel this facilitator is payee and rent payer of, for the claim (settle) and the
 * keeper alike: seal (with the seller's voucher, or at the current watermark), then Distribute the committed split
 * (the settled amount to payTo, the rest back to the buyer, the escrow's rent back to the fee payer), and at last
 * Reclaim the channel account's rent. Every account comes from the Channel account read on chain and the one split
 * the upto scheme commits (all of the settled amount to payTo).
 */

/** The official settle transaction asks for 100,000 units; the stand-in needs ~27,000 for the claim. */
export const CLAIM_COMPUTE_UNIT_LIMIT = 100_000;

export function uptoSplits(payTo: Address): readonly DistributionEntry[] {
  return [{ recipient: payTo, bps: BPS_DENOMINATOR }];
}

/** sha256 of the split's preimage: what Open stored in Channel.distributionHash. */
export async function distributionHashOf(splits: readonly DistributionEntry[]): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", encodeDistributionPreimage(splits) as Uint8Array<ArrayBuffer>),
  );
}

export async function channelPaysTo(channel: Channel, payTo: Address): Promise<boolean> {
  const hash = await distributionHashOf(uptoSplits(payTo));
  return (
    hash.length === channel.distributionHash.length && hash.every((byte, i) => byte === channel.distributionHash[i])
  );
}

/** [Ed25519 voucher proof, SettleAndSeal(1)] for a charge, or [SettleAndSeal(0)] to seal at the current watermark. */
export function settleAndSealInstructions(
  config: Config,
  channelId: Address,
  voucher: { voucher: Voucher; signer: Address; signature: Uint8Array } | null,
): Instruction[] {
  const seal = getSettleAndSealInstruction({
    programId: config.programs.paymentChannels,
    payee: config.feePayer,
    channel: channelId,
    hasVoucher: voucher ? 1 : 0,
  });
  return voucher ? [voucherProof(voucher), seal] : [seal];
}

/** [Ed25519 voucher proof, Settle]: the charge without the seal (OPEN only); the channel stays open. */
export function settleInstructions(
  config: Config,
  channelId: Address,
  voucher: { voucher: Voucher; signer: Address; signature: Uint8Array },
): Instruction[] {
  return [
    voucherProof(voucher),
    getSettleInstruction({ programId: config.programs.paymentChannels, channel: channelId }),
  ];
}

function voucherProof(voucher: { voucher: Voucher; signer: Address; signature: Uint8Array }): Instruction {
  return getEd25519VoucherInstruction({
    signer: voucher.signer,
    signature: voucher.signature,
    message: encodeVoucherMessage(voucher.voucher),
  });
}

export function sealInstruction(config: Config, channelId: Address): Instruction {
  return getSealInstruction({ programId: config.programs.paymentChannels, channel: channelId });
}

export function reclaimInstruction(config: Config, channelId: Address, rentPayer: Address): Instruction {
  return getReclaimInstruction({ programId: config.programs.paymentChannels, channel: channelId, rentPayer });
}

/** Distribute of the upto split, every account derived from the channel. */
export async function distributeInstruction(
  config: Config,
  channelId: Address,
  channel: Channel,
  payTo: Address,
  tokenProgram: Address,
): Promise<Instruction> {
  const mint = channel.mint;
  const ata = async (owner: Address) => (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0];
  const splits = uptoSplits(payTo);
  const [
    channelTokenAccount,
    payerTokenAccount,
    payeeTokenAccount,
    treasuryTokenAccount,
    [eventAuthority],
    ...recipientTokenAccounts
  ] = await Promise.all([
    ata(channelId),
    ata(channel.payer),
    ata(channel.payee),
    ata(config.upto.treasuryOwner),
    findEventAuthorityPda(config.programs.paymentChannels),
    ...splits.map((split) => ata(split.recipient)),
  ]);
  return getDistributeInstruction({
    programId: config.programs.paymentChannels,
    channel: channelId,
    payer: channel.payer,
    rentPayer: channel.rentPayer,
    channelTokenAccount,
    payerTokenAccount,
    payeeTokenAccount,
    treasuryTokenAccount,
    mint,
    tokenProgram,
    eventAuthority,
    recipients: splits,
    recipientTokenAccounts: recipientTokenAccounts as Address[],
  });
}

/** The claim's compute budget: the official limit (within the operator's cap) at the recommended price. */
export function claimComputeBudget(config: Config): Instruction[] {
  const limit = Math.min(CLAIM_COMPUTE_UNIT_LIMIT, config.compute.maxUnitLimit);
  const price = config.compute.recommendedUnitPriceMicroLamports;
  return [getSetComputeUnitLimitInstruction(limit), ...(price > 0n ? [getSetComputeUnitPriceInstruction(price)] : [])];
}

/** A base58 Ed25519 signature as 64 bytes, or null. */
export function signatureBytes(base58: string): Uint8Array | null {
  try {
    const bytes = new Uint8Array(getBase58Encoder().encode(base58));
    return bytes.length === 64 ? bytes : null;
  } catch {
    return null;
  }
}
