/**
 * A payment-channels scene on the in-process chain (litesvm with the stand-in at the real program id):
 * a USDC-like mint, a buyer with tokens (channel payer), the facilitator (payee and rent payer, as in
 * the official upto scheme), the seller (payTo: the one split recipient, 100%), a voucher signer
 * (the scheme's receiverAuthorizer) and the treasury ATA Distribute requires.
 * Every instruction is built with the facilitator's own client (src/chain/program/payment-channels).
 */
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner, signBytes } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER } from "../../localnet/programs/index";
import { type Channel, decodeChannel } from "../../src/rails/upto/program/accounts";
import {
  BPS_DENOMINATOR,
  getDistributeInstruction,
  getOpenInstruction,
  getReclaimInstruction,
  getRequestCloseInstruction,
  getSealInstruction,
  getSettleAndSealInstruction,
  getSettleInstruction,
  getWithdrawPayerInstruction,
} from "../../src/rails/upto/program/instructions";
import {
  findChannelPda,
  findEventAuthorityPda,
  PAYMENT_CHANNELS_PROGRAM_ADDRESS,
} from "../../src/rails/upto/program/pda";
import { encodeVoucherMessage, getEd25519VoucherInstruction } from "../../src/rails/upto/program/voucher";
import {
  ataOf,
  createAta,
  createMint,
  createStandInChain,
  dataOf,
  fundedSigner,
  mintTo,
  type TestMint,
} from "./harness";

export const PROGRAM_ID = PAYMENT_CHANNELS_PROGRAM_ADDRESS;
export const BUYER_INITIAL_TOKENS = 10_000_000n;

export interface ChannelWorld {
  svm: LiteSVM;
  mint: TestMint;
  buyer: KeyPairSigner;
  buyerAta: Address;
  facilitator: KeyPairSigner;
  facilitatorAta: Address;
  seller: KeyPairSigner;
  sellerAta: Address;
  authorizer: KeyPairSigner;
  treasuryAta: Address;
  eventAuthority: Address;
}

export async function createChannelWorld(): Promise<ChannelWorld> {
  const svm = createStandInChain();
  const authority = await fundedSigner(svm);
  const mint = await createMint(svm, authority, 6);
  const buyer = await fundedSigner(svm, 1n);
  const facilitator = await fundedSigner(svm, 10n);
  const seller = await generateKeyPairSigner();
  const authorizer = await generateKeyPairSigner();
  const buyerAta = await createAta(svm, mint, buyer.address);
  await mintTo(svm, mint, buyerAta, BUYER_INITIAL_TOKENS);
  const sellerAta = await createAta(svm, mint, seller.address);
  const treasuryAta = await createAta(svm, mint, PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER as Address);
  const [eventAuthority] = await findEventAuthorityPda();
  return {
    svm,
    mint,
    buyer,
    buyerAta,
    facilitator,
    facilitatorAta: await ataOf(mint, facilitator.address),
    seller,
    sellerAta,
    authorizer,
    treasuryAta,
    eventAuthority,
  };
}

export interface OpenedChannel {
  channel: Address;
  channelAta: Address;
  salt: bigint;
  openSlot: bigint;
  deposit: bigint;
  gracePeriod: number;
}

export function splitsOf(w: ChannelWorld) {
  return [{ recipient: w.seller.address, bps: BPS_DENOMINATOR }];
}

/** Open with deposit, the facilitator paying rent and the fee (the upto scheme's roles). */
export async function openInstruction(
  w: ChannelWorld,
  options: { deposit: bigint; gracePeriod?: number; salt?: bigint; openSlot?: bigint },
): Promise<{ instruction: Instruction; opened: OpenedChannel }> {
  const salt = options.salt ?? 7n;
  const openSlot = options.openSlot ?? w.svm.getClock().slot;
  const gracePeriod = options.gracePeriod ?? 900;
  const [channel] = await findChannelPda({
    payer: w.buyer.address,
    payee: w.facilitator.address,
    mint: w.mint.mint,
    authorizedSigner: w.authorizer.address,
    salt,
    openSlot,
  });
  const channelAta = await ataOf(w.mint, channel);
  const instruction = getOpenInstruction({
    programId: PROGRAM_ID,
    payer: w.buyer,
    rentPayer: w.facilitator,
    payee: w.facilitator.address,
    mint: w.mint.mint,
    authorizedSigner: w.authorizer.address,
    channel,
    payerTokenAccount: w.buyerAta,
    channelTokenAccount: channelAta,
    tokenProgram: w.mint.tokenProgram,
    eventAuthority: w.eventAuthority,
    salt,
    deposit: options.deposit,
    gracePeriod,
    openSlot,
    recipients: splitsOf(w),
  });
  return { instruction, opened: { channel, channelAta, salt, openSlot, deposit: options.deposit, gracePeriod } };
}

/** The Ed25519 precompile instruction carrying a voucher signed by `signer`; `claimedSigner` puts
 * another public key in the instruction (a forged signature). */
export async function voucherInstruction(
  channel: Address,
  cumulativeAmount: bigint,
  signer: KeyPairSigner,
  options: { claimedSigner?: Address; expiresAt?: bigint } = {},
): Promise<Instruction> {
  const message = encodeVoucherMessage({ channelId: channel, cumulativeAmount, expiresAt: options.expiresAt ?? 0n });
  const signature = await signBytes(signer.keyPair.privateKey, message);
  return getEd25519VoucherInstruction({ signer: options.claimedSigner ?? signer.address, signature, message });
}

export function settleAndSealInstruction(w: ChannelWorld, channel: Address, hasVoucher: boolean): Instruction {
  return getSettleAndSealInstruction({
    programId: PROGRAM_ID,
    payee: w.facilitator,
    channel,
    hasVoucher: hasVoucher ? 1 : 0,
  });
}

export function settleInstruction(channel: Address): Instruction {
  return getSettleInstruction({ programId: PROGRAM_ID, channel });
}

export function distributeInstruction(w: ChannelWorld, opened: OpenedChannel): Instruction {
  return getDistributeInstruction({
    programId: PROGRAM_ID,
    channel: opened.channel,
    payer: w.buyer.address,
    rentPayer: w.facilitator.address,
    channelTokenAccount: opened.channelAta,
    payerTokenAccount: w.buyerAta,
    payeeTokenAccount: w.facilitatorAta,
    treasuryTokenAccount: w.treasuryAta,
    mint: w.mint.mint,
    tokenProgram: w.mint.tokenProgram,
    eventAuthority: w.eventAuthority,
    recipients: splitsOf(w),
    recipientTokenAccounts: [w.sellerAta],
  });
}

export function requestCloseInstruction(w: ChannelWorld, channel: Address): Instruction {
  return getRequestCloseInstruction({ programId: PROGRAM_ID, payer: w.buyer, channel });
}

export function sealInstruction(channel: Address): Instruction {
  return getSealInstruction({ programId: PROGRAM_ID, channel });
}

export function withdrawPayerInstruction(w: ChannelWorld, opened: OpenedChannel): Instruction {
  return getWithdrawPayerInstruction({
    programId: PROGRAM_ID,
    payer: w.buyer,
    channel: opened.channel,
    channelTokenAccount: opened.channelAta,
    payerTokenAccount: w.buyerAta,
    mint: w.mint.mint,
    tokenProgram: w.mint.tokenProgram,
  });
}

export function reclaimInstruction(w: ChannelWorld, channel: Address): Instruction {
  return getReclaimInstruction({ programId: PROGRAM_ID, channel, rentPayer: w.facilitator.address });
}

export function channelState(w: ChannelWorld, channel: Address): Channel {
  const decoded = decodeChannel(dataOf(w.svm, channel));
  if (decoded === null) throw new Error(`${channel} is not a Channel`);
  return decoded;
}
