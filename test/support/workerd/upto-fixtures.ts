import {
  type Address,
  address,
  type Blockhash,
  generateKeyPairSigner,
  getBase58Decoder,
  type Instruction,
  type KeyPairSigner,
  signBytes,
} from "@solana/kit";
import { compileUnsignedTransaction } from "../../../src/chain/unsigned-transaction";
import {
  buildUptoDepositTransaction,
  channelSaltAtFirstBump,
  type UptoDepositTransactionInput,
  uptoDepositInstructions,
} from "../../../src/rails/upto/build-deposit-transaction";
import { getOpenInstructionDataCodec, type OpenInstructionData } from "../../../src/rails/upto/program/instructions";
import { PAYMENT_CHANNELS_PROGRAM_ADDRESS } from "../../../src/rails/upto/program/pda";
import { encodeVoucherMessage } from "../../../src/rails/upto/program/voucher";
import { signWireTransaction } from "../sign-transaction";
import { chainRpc } from "./chain";
import { TOKEN_PROGRAM } from "./craft-payment";
import { DEVNET, USDC } from "./payment-fixtures";

/**
 * upto payments for workerd tests. The honest deposit is the facilitator's own builder's
 * (`buildUptoDepositTransaction`, byte-for-byte the official client's `buildOpenPaymentChannelTransaction`, see
 * test/unit/rails/upto/deposit-transaction.test.ts) with the official client's compute price of 1 micro-lamport, signed
 * by the buyer only. The attack tests bend that honest output: its instruction list, its Open's accounts and data, the
 * message's fee payer, extra signers. The official client itself runs against the same facilitator in the e2e test.
 */

export interface UptoLineOptions {
  feePayer: Address;
  authorizer: Address;
  amount?: string;
  payTo?: Address;
  withdrawDelay?: number;
  maxTimeoutSeconds?: number;
  /** Default USDC (SPL Token); another mint needs its token program in `extra.tokenProgram`. */
  asset?: Address;
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
    asset: options.asset ?? USDC,
    amount: options.amount ?? "2000000",
    payTo: options.payTo ?? (await uptoSeller()),
    maxTimeoutSeconds: options.maxTimeoutSeconds ?? 60,
    extra: {
      feePayer: options.feePayer,
      receiverAuthorizer: options.authorizer,
      withdrawDelay: options.withdrawDelay ?? 900,
      tokenProgram: TOKEN_PROGRAM,
      ...options.extra,
    },
  };
}

/** The honest deposit's instructions, for an attack to rearrange. */
export interface OpenParts {
  computeBudget: Instruction[];
  open: Instruction;
  memo: Instruction;
  feePayer: Address;
}

/** Changes to the honest Open: its voucher key (account 4) and fields of its data. */
export type OpenBend = Partial<Pick<OpenInstructionData, "deposit" | "gracePeriod" | "recipients">> & {
  authorizedSigner?: Address;
};

export interface DepositOptions {
  /** Rewrites the instruction list (default: [...computeBudget, open, memo]). */
  instructions?: (parts: OpenParts) => Instruction[];
  /** Bends the honest Open after the builder made it. */
  open?: OpenBend;
  /** Fee payer of the transaction (default: the line's feePayer, who stays the Open's rent payer and payee). */
  feePayer?: Address;
  /** Signers besides the buyer (an attack's extra signer). */
  signers?: KeyPairSigner[];
  openSlot?: bigint;
  expiresAt?: number;
}

/** The buyer-signed deposit payload (the official client's fields). */
export async function uptoDeposit(
  buyer: KeyPairSigner,
  line: Record<string, any>,
  options: DepositOptions = {},
): Promise<Record<string, any>> {
  const feePayer = address(line.extra.feePayer);
  const { value: latest, context } = await chainRpc<{
    value: { blockhash: string; lastValidBlockHeight: number };
    context: { slot: number };
  }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
  const openSlot = options.openSlot ?? BigInt(context.slot);
  const salt = await channelSaltAtFirstBump(
    {
      payer: buyer.address,
      payee: feePayer,
      mint: address(line.asset),
      authorizedSigner: address(line.extra.receiverAuthorizer),
      openSlot,
    },
    PAYMENT_CHANNELS_PROGRAM_ADDRESS,
    address(line.extra.tokenProgram ?? TOKEN_PROGRAM),
  );
  const deposit = BigInt(line.amount);
  const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const input: UptoDepositTransactionInput = {
    programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS,
    feePayer,
    payer: buyer.address,
    mint: address(line.asset),
    tokenProgram: address(line.extra.tokenProgram ?? TOKEN_PROGRAM),
    authorizedSigner: address(line.extra.receiverAuthorizer),
    payTo: address(line.payTo),
    deposit,
    gracePeriodSeconds: line.extra.withdrawDelay,
    openSlot,
    salt,
    computeUnitLimit: 90_000,
    computeUnitPriceMicroLamports: 1n,
    blockhash: { blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) },
    memo: typeof line.extra.memo === "string" ? line.extra.memo : nonce,
  };
  const bent = options.instructions || options.open || options.feePayer || options.signers;
  let channelId: Address;
  let unsigned: string;
  if (!bent) {
    const built = await buildUptoDepositTransaction(input);
    ({ channelId, transaction: unsigned } = built);
  } else {
    const parts = await uptoDepositInstructions(input);
    channelId = parts.channelId;
    const open = options.open ? bendOpen(parts.open, options.open) : parts.open;
    const honest: OpenParts = { computeBudget: parts.computeBudget, open, memo: parts.memo, feePayer };
    const instructions = options.instructions
      ? options.instructions(honest)
      : [...honest.computeBudget, open, honest.memo];
    unsigned = compileUnsignedTransaction({
      feePayer: options.feePayer ?? feePayer,
      blockhash: input.blockhash,
      instructions,
    }).transaction;
  }
  const now = Math.floor(Date.now() / 1000);
  return {
    channelId,
    deposit: deposit.toString(),
    expiresAt: options.expiresAt ?? now + line.maxTimeoutSeconds,
    from: buyer.address,
    maxAmount: deposit.toString(),
    nonce: salt.toString(),
    openSlot: openSlot.toString(),
    openTransaction: await signWireTransaction(unsigned, [buyer, ...(options.signers ?? [])]),
    authorizedSigner: input.authorizedSigner,
    validAfter: now,
  };
}

/**
 * The builder's Open with its voucher key swapped or its data fields rewritten (the channel address stays the honest
 * one).
 */
function bendOpen(open: Instruction, bend: OpenBend): Instruction {
  const { authorizedSigner, ...fields } = bend;
  const codec = getOpenInstructionDataCodec();
  const accounts = open.accounts!.map((meta, index) =>
    index === 4 && authorizedSigner ? { ...meta, address: authorizedSigner } : meta,
  );
  return { ...open, accounts, data: codec.encode({ ...codec.decode(open.data!), ...fields }) };
}

/**
 * A /verify or /settle body: what the official server sends (accepted = the line; requirements = the line, or the
 * charge).
 */
export function uptoBody(
  line: Record<string, any>,
  payload: Record<string, any>,
  requirements: Record<string, any> = line,
): Record<string, any> {
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: line, payload },
    paymentRequirements: requirements,
  };
}

/** The seller's server's claim of `amount` (its own voucher, as `enrichSettlementPayload` signs it). */
export async function uptoClaimBody(
  line: Record<string, any>,
  deposit: Record<string, any>,
  amount: bigint,
  authorizer: KeyPairSigner | null,
): Promise<Record<string, any>> {
  const voucherSignature = authorizer
    ? await signVoucher(authorizer, deposit.channelId, amount, BigInt(deposit.expiresAt))
    : undefined;
  return uptoBody(
    line,
    { ...deposit, type: "claim", ...(voucherSignature ? { voucherSignature } : {}) },
    { ...line, amount: amount.toString() },
  );
}

export async function signVoucher(
  authorizer: KeyPairSigner,
  channelId: Address,
  cumulativeAmount: bigint,
  expiresAt: bigint,
): Promise<string> {
  const message = encodeVoucherMessage({ channelId, cumulativeAmount, expiresAt });
  return getBase58Decoder().decode(await signBytes(authorizer.keyPair.privateKey, message as Uint8Array<ArrayBuffer>));
}

export async function channelAccount(channelId: Address): Promise<Uint8Array | null> {
  const result = await chainRpc<{ value: { data: [string, string] } | null }>("getAccountInfo", [
    channelId,
    { encoding: "base64", commitment: "confirmed" },
  ]);
  return result.value ? Uint8Array.from(atob(result.value.data[0]), (c) => c.charCodeAt(0)) : null;
}

/**
 * The channel row of a made-up deposit (no chain behind it), for the channel table's own bookkeeping: the keeper's
 * claims, the opening grace, a row written again. The rent is a real channel account's.
 */
export function madeUpChannelRow(channelId: string, openMessageHash: string, firstCheckAtMs: number) {
  return {
    channelId,
    openMessageHash,
    openBlockhash: "bh",
    payer: "payer",
    payTo: "payTo",
    asset: "asset",
    tokenProgram: "tp",
    deposit: "1",
    expiresAt: 0,
    firstCheckAtMs,
    rentLamports: 4_711_920n,
    feePayer: "feePayer",
  };
}
