import {
  address,
  appendTransactionMessageInstructions,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { findChannelPda, findEventAuthorityPda, PAYMENT_CHANNELS_PROGRAM_ADDRESS } from "../../../src/programs/payment-channels/pda";
import { getOpenInstruction } from "../../../src/programs/payment-channels/instructions";
import { encodeVoucherMessage } from "../../../src/programs/payment-channels/voucher";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "../../../src/solana/compute-budget";
import { DEVNET, USDC } from "./payment-fixtures";
import { chainRpc } from "./chain";
import { MEMO_PROGRAM, TOKEN_PROGRAM } from "./craft-payment";

/**
 * upto payments for workerd tests, built the way the official client builds them (`@x402/svm/upto/client`
 * `buildOpenPaymentChannelTransaction`: v0 message, fee payer = the facilitator, [SetComputeUnitLimit 90,000,
 * SetComputeUnitPrice 1, Open, Memo with a random nonce], signed by the buyer only), with hooks to bend each part
 * for the attack tests. The official client itself runs against the same facilitator in the e2e test.
 */

export interface UptoLineOptions {
  feePayer: Address;
  authorizer: Address;
  amount?: string;
  payTo?: Address;
  withdrawDelay?: number;
  maxTimeoutSeconds?: number;
  extra?: Record<string, unknown>;
}

/** A seller wallet whose USDC account exists (a split to a missing account would go to the treasury). */
export async function uptoSeller(): Promise<Address> {
  const seller = (await generateKeyPairSigner()).address;
  await chainRpc("requestTokenAirdrop", [seller, 1]);
  return seller;
}

export async function uptoLine(options: UptoLineOptions): Promise<Record<string, any>> {
  return {
    scheme: "upto",
    network: DEVNET,
    asset: USDC,
    amount: options.amount ?? "2000000",
    payTo: options.payTo ?? (await uptoSeller()),
    maxTimeoutSeconds: options.maxTimeoutSeconds ?? 60,
    extra: { feePayer: options.feePayer, receiverAuthorizer: options.authorizer, withdrawDelay: options.withdrawDelay ?? 900, tokenProgram: TOKEN_PROGRAM, ...options.extra },
  };
}

export interface OpenParts {
  computeBudget: Instruction[];
  open: Instruction;
  memo: Instruction;
  /** Signers besides the buyer the transaction must carry (an attack's extra signer). */
  feePayer: Address;
}

export interface DepositOptions {
  /** Rewrites the instruction list (default: [...computeBudget, open, memo]). */
  instructions?: (parts: OpenParts) => Instruction[];
  /** Overrides of the Open's accounts or data before it is built. */
  open?: Partial<Parameters<typeof getOpenInstruction>[0]>;
  /** Fee payer of the transaction (default: the line's feePayer). */
  feePayer?: Address;
  openSlot?: bigint;
  expiresAt?: number;
}

/** The buyer-signed deposit payload (the official client's fields). */
export async function uptoDeposit(buyer: KeyPairSigner, line: Record<string, any>, options: DepositOptions = {}): Promise<Record<string, any>> {
  const feePayer = address(line.extra.feePayer);
  const authorizedSigner = address(line.extra.receiverAuthorizer);
  const mint = address(line.asset);
  const { value: latest, context } = await chainRpc<{ value: { blockhash: string; lastValidBlockHeight: number }; context: { slot: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
  const openSlot = options.openSlot ?? BigInt(context.slot);
  const salt = BigInt.asUintN(64, BigInt(`0x${[...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("")}`));
  const deposit = BigInt(line.amount);
  const [channel] = await findChannelPda({ payer: buyer.address, payee: feePayer, mint, authorizedSigner, salt, openSlot });
  const [payerTokenAccount] = await findAssociatedTokenPda({ owner: buyer.address, mint, tokenProgram: TOKEN_PROGRAM });
  const [channelTokenAccount] = await findAssociatedTokenPda({ owner: channel, mint, tokenProgram: TOKEN_PROGRAM });
  const [eventAuthority] = await findEventAuthorityPda();
  const open = getOpenInstruction({
    programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS,
    payer: buyer,
    rentPayer: createNoopSigner(feePayer),
    payee: feePayer,
    mint,
    authorizedSigner,
    channel,
    payerTokenAccount,
    channelTokenAccount,
    tokenProgram: TOKEN_PROGRAM,
    eventAuthority,
    salt,
    deposit,
    gracePeriod: line.extra.withdrawDelay,
    openSlot,
    recipients: [{ recipient: address(line.payTo), bps: 10_000 }],
    ...options.open,
  });
  const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const parts: OpenParts = {
    computeBudget: [getSetComputeUnitLimitInstruction(90_000), getSetComputeUnitPriceInstruction(1n)],
    open,
    memo: { programAddress: MEMO_PROGRAM, accounts: [], data: new TextEncoder().encode(typeof line.extra.memo === "string" ? line.extra.memo : nonce) },
    feePayer,
  };
  const instructions = options.instructions ? options.instructions(parts) : [...parts.computeBudget, open, parts.memo];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(options.feePayer ?? feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  const now = Math.floor(Date.now() / 1000);
  return {
    channelId: channel,
    deposit: deposit.toString(),
    expiresAt: options.expiresAt ?? now + line.maxTimeoutSeconds,
    from: buyer.address,
    maxAmount: deposit.toString(),
    nonce: salt.toString(),
    openSlot: openSlot.toString(),
    openTransaction: getBase64EncodedWireTransaction(signed),
    authorizedSigner,
    validAfter: now,
  };
}

/** A /verify or /settle body: what the official server sends (accepted = the line; requirements = the line, or the charge). */
export function uptoBody(line: Record<string, any>, payload: Record<string, any>, requirements: Record<string, any> = line): Record<string, any> {
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: line, payload }, paymentRequirements: requirements };
}

/** The seller's server's claim of `amount` (its own voucher, as `enrichSettlementPayload` signs it). */
export async function uptoClaimBody(line: Record<string, any>, deposit: Record<string, any>, amount: bigint, authorizer: KeyPairSigner | null): Promise<Record<string, any>> {
  const voucherSignature = authorizer ? await signVoucher(authorizer, deposit.channelId, amount, BigInt(deposit.expiresAt)) : undefined;
  return uptoBody(line, { ...deposit, type: "claim", ...(voucherSignature ? { voucherSignature } : {}) }, { ...line, amount: amount.toString() });
}

export async function signVoucher(authorizer: KeyPairSigner, channelId: Address, cumulativeAmount: bigint, expiresAt: bigint): Promise<string> {
  const message = encodeVoucherMessage({ channelId, cumulativeAmount, expiresAt });
  return getBase58Decoder().decode(await signBytes(authorizer.keyPair.privateKey, message as Uint8Array<ArrayBuffer>));
}

export async function channelAccount(channelId: Address): Promise<Uint8Array | null> {
  const result = await chainRpc<{ value: { data: [string, string] } | null }>("getAccountInfo", [channelId, { encoding: "base64", commitment: "confirmed" }]);
  return result.value ? Uint8Array.from(atob(result.value.data[0]), (c) => c.charCodeAt(0)) : null;
}
