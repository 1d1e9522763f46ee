import { type Address, type Blockhash, getProgramDerivedAddress, type Instruction } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "../../chain/compute-budget";
import { MEMO_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { compileUnsignedTransaction } from "../../chain/unsigned-transaction";
import { BPS_DENOMINATOR, getOpenInstruction } from "./program/instructions";
import { type ChannelSeeds, channelSeedBytes, findChannelPda, findEventAuthorityPda } from "./program/pda";

/**
 * The unsigned `upto` deposit (a payment-channels Open), as a pure function of its inputs, in the shape the official
 * client (`@x402/svm/upto/client`, buildOpenPaymentChannelTransaction) builds and the official facilitator's
 * canonical-open check accepts (docs/payment-channels.md "Roles"):
 *
 *   fee payer = rent payer = payee = the facilitator (account 0, signature left empty), payer = the buyer,
 *   authorized signer = the receiver authorizer, deposit = the ceiling, one split of 10,000 bps to payTo,
 *   [SetComputeUnitLimit, SetComputeUnitPrice?, Open, Memo], v0, no lookup tables.
 */

/**
 * The official client's compute unit limit for the open (OPEN_DEFAULT_COMPUTE_UNIT_LIMIT in @x402/svm 2.27): the
 * stand-in measures ~41k CU (docs/payment-channels.md "Compute"); the real program's SPL transfers and ATA creation
 * cost more, so the official figure is kept rather than the local one.
 */
export const UPTO_OPEN_COMPUTE_UNIT_LIMIT = 90_000;

export interface UptoDepositTransactionInput {
  programId: Address;
  /** The facilitator: fee payer, rent payer and payee of the channel. */
  feePayer: Address;
  /** The buyer: signs the deposit transfer from its ATA. */
  payer: Address;
  mint: Address;
  tokenProgram: Address;
  /** The receiver authorizer: the key whose vouchers the channel accepts. */
  authorizedSigner: Address;
  /** The split's only recipient (the seller, paid 10,000 bps of what is claimed). */
  payTo: Address;
  /** The ceiling, moved into the channel's escrow at open. */
  deposit: bigint;
  gracePeriodSeconds: number;
  /** A recent slot (≤ the chain's, within 1,500); a seed of the channel address. */
  openSlot: bigint;
  /** The channel's salt (the payload's `nonce`); a seed of the channel address. */
  salt: bigint;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  blockhash: { blockhash: Blockhash; lastValidBlockHeight: bigint };
  /**
   * Memo text after the open: the requirement's `extra.memo`, else a random 16-byte hex nonce (the official client's
   * rule).
   */
  memo: string;
}

export interface BuiltUptoDepositTransaction {
  transaction: string;
  channelId: Address;
  payerTokenAccount: Address;
  channelTokenAccount: Address;
  signerPubkeys: Address[];
  payerSignatureIndex: number;
}

/** The deposit's instructions before they are compiled, with the accounts they derive. */
export interface UptoDepositInstructions {
  channelId: Address;
  payerTokenAccount: Address;
  channelTokenAccount: Address;
  /** SetComputeUnitLimit, then SetComputeUnitPrice unless the price is 0. */
  computeBudget: Instruction[];
  open: Instruction;
  memo: Instruction;
}

/**
 * The deposit's instructions in order ([...computeBudget, open, memo]); `buildUptoDepositTransaction` compiles them.
 */
export async function uptoDepositInstructions(
  input: Omit<UptoDepositTransactionInput, "blockhash">,
): Promise<UptoDepositInstructions> {
  const { programId, feePayer, payer, mint, tokenProgram, authorizedSigner } = input;
  const [[channel], [eventAuthority]] = await Promise.all([
    findChannelPda(
      { payer, payee: feePayer, mint, authorizedSigner, salt: input.salt, openSlot: input.openSlot },
      programId,
    ),
    findEventAuthorityPda(programId),
  ]);
  const [[payerTokenAccount], [channelTokenAccount]] = await Promise.all([
    findAssociatedTokenPda({ owner: payer, mint, tokenProgram }),
    findAssociatedTokenPda({ owner: channel, mint, tokenProgram }),
  ]);
  const open = getOpenInstruction({
    programId,
    payer,
    rentPayer: feePayer,
    payee: feePayer,
    mint,
    authorizedSigner,
    channel,
    payerTokenAccount,
    channelTokenAccount,
    tokenProgram,
    eventAuthority,
    salt: input.salt,
    deposit: input.deposit,
    gracePeriod: input.gracePeriodSeconds,
    openSlot: input.openSlot,
    recipients: [{ recipient: input.payTo, bps: BPS_DENOMINATOR }],
  });
  const computeBudget: Instruction[] = [
    getSetComputeUnitLimitInstruction(input.computeUnitLimit),
    // As the official client: no price instruction at 0 (its canonical check allows either).
    ...(input.computeUnitPriceMicroLamports > 0n
      ? [getSetComputeUnitPriceInstruction(input.computeUnitPriceMicroLamports)]
      : []),
  ];
  const memo: Instruction = {
    programAddress: MEMO_PROGRAM_ADDRESS,
    accounts: [],
    data: new TextEncoder().encode(input.memo),
  };
  return { channelId: channel, payerTokenAccount, channelTokenAccount, computeBudget, open, memo };
}

export async function buildUptoDepositTransaction(
  input: UptoDepositTransactionInput,
): Promise<BuiltUptoDepositTransaction> {
  const { payer, feePayer } = input;
  const { computeBudget, open, memo, ...accounts } = await uptoDepositInstructions(input);
  const { transaction, signerPubkeys } = compileUnsignedTransaction({
    feePayer,
    blockhash: input.blockhash,
    instructions: [...computeBudget, open, memo],
  });
  return { transaction, ...accounts, signerPubkeys, payerSignatureIndex: signerPubkeys.indexOf(payer) };
}

/** A random u64 channel salt. */
function randomChannelSalt(): bigint {
  return new DataView(crypto.getRandomValues(new Uint8Array(8)).buffer).getBigUint64(0, true);
}

/** Salts tried before taking any: each try succeeds with probability 1/4, so 32 fail once in ~10^4 builds. */
const SALT_TRIES = 32;

/**
 * A random salt whose channel PDA and escrow token account both derive at the first bump (255). The Open instruction
 * searches both addresses on chain (the program its channel, the token-account program its escrow), each further bump
 * costing compute units; at the first bump the open's cost is its lowest and the same for every buyer, well inside
 * the official client's limit (UPTO_OPEN_COMPUTE_UNIT_LIMIT). Any salt is valid: one that misses only costs more.
 */
export async function channelSaltAtFirstBump(
  seeds: Omit<ChannelSeeds, "salt">,
  programId: Address,
  tokenProgram: Address,
): Promise<bigint> {
  let salt = randomChannelSalt();
  for (let tries = 1; tries < SALT_TRIES; tries++, salt = randomChannelSalt()) {
    // Uncached: the salts tried and dropped would only crowd the isolate's PDA cache (the one kept is derived again).
    const [channel, channelBump] = await getProgramDerivedAddress({
      programAddress: programId,
      seeds: channelSeedBytes({ ...seeds, salt }),
    });
    if (channelBump !== 255) continue;
    const [, escrowBump] = await findAssociatedTokenPda({ owner: channel, mint: seeds.mint, tokenProgram });
    if (escrowBump === 255) return salt;
  }
  return salt;
}
