/**
 * A small in-process chain for the stand-in program tests: litesvm with the stand-ins loaded at
 * their devnet ids, the clock at wall-clock time, and helpers to send kit instructions, place
 * program-owned accounts and make SPL mints and token accounts with the real Token programs.
 */
import {
  type AccountMeta,
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  type ReadonlyUint8Array,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from "@solana/kit";
import { getCreateAccountInstruction, getTransferSolInstruction } from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";
import { STANDIN_PROGRAMS } from "../../localnet/programs/index";

export const TOKEN_2022_PROGRAM_ADDRESS = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
export const LAMPORTS_PER_SOL = 1_000_000_000n;

export function nowUnixSeconds(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

/** litesvm with both stand-ins at their devnet ids and the clock at wall-clock time. */
export function createStandInChain(): LiteSVM {
  const svm = new LiteSVM();
  for (const program of STANDIN_PROGRAMS) svm.addProgramFromFile(address(program.programId), program.soPath);
  setUnixTime(svm, nowUnixSeconds());
  return svm;
}

export function setUnixTime(svm: LiteSVM, unixSeconds: bigint): void {
  const clock = svm.getClock();
  clock.unixTimestamp = unixSeconds;
  svm.setClock(clock);
}

export function unixTime(svm: LiteSVM): bigint {
  return svm.getClock().unixTimestamp;
}

export function advanceTime(svm: LiteSVM, seconds: bigint): void {
  setUnixTime(svm, unixTime(svm) + seconds);
}

export async function fundedSigner(svm: LiteSVM, sol = 100n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  svm.airdrop(signer.address, lamports(sol * LAMPORTS_PER_SOL));
  return signer;
}

export type SendResult =
  | { ok: true; logs: string[]; computeUnits: bigint }
  | { ok: false; logs: string[]; error: string; customCode: number | undefined; instructionIndex: number | undefined };

/** Signs with every signer found in the metas plus the fee payer, sends, and rotates the blockhash
 * (so that an identical transaction later is not a duplicate). */
export async function send(
  svm: LiteSVM,
  feePayer: TransactionSigner,
  instructions: Instruction[],
): Promise<SendResult> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  const result = svm.sendTransaction(transaction);
  svm.expireBlockhash();
  if (result instanceof FailedTransactionMetadata) {
    const err = result.err();
    let customCode: number | undefined;
    let instructionIndex: number | undefined;
    // litesvm's error classes are not exported: recognise InstructionError(index, Custom(code)) by shape.
    if (typeof err === "object" && "index" in err && "err" in err) {
      instructionIndex = err.index;
      const inner: unknown = err.err();
      if (typeof inner === "object" && inner !== null && "code" in inner && typeof inner.code === "number") {
        customCode = inner.code;
      }
    }
    return { ok: false, logs: result.meta().logs(), error: String(err), customCode, instructionIndex };
  }
  return { ok: true, logs: result.logs(), computeUnits: result.computeUnitsConsumed() };
}

/** Sends and throws with the logs when the transaction fails. */
export async function sendOk(
  svm: LiteSVM,
  feePayer: TransactionSigner,
  instructions: Instruction[],
): Promise<string[]> {
  const result = await send(svm, feePayer, instructions);
  if (!result.ok) throw new Error(`transaction failed: ${result.error}\n${result.logs.join("\n")}`);
  return result.logs;
}

/** Copy of an instruction with the account at `index` given another role (to forge bad requests). */
export function withAccountRole<T extends Instruction>(instruction: T, index: number, role: AccountRole): T {
  const accounts = [...(instruction.accounts ?? [])].map(
    (meta, i): AccountMeta => (i === index ? { address: meta.address, role } : meta),
  );
  return { ...instruction, accounts };
}

/** Copy of an instruction with the account at `index` replaced by another address. */
export function withAccount<T extends Instruction>(instruction: T, index: number, replacement: Address): T {
  const accounts = [...(instruction.accounts ?? [])].map(
    (meta, i): AccountMeta => (i === index ? { ...meta, address: replacement } : meta),
  );
  return { ...instruction, accounts };
}

export function lamportsOf(svm: LiteSVM, account: Address): bigint {
  return svm.getBalance(account) ?? 0n;
}

export function dataOf(svm: LiteSVM, account: Address): Uint8Array {
  const found = svm.getAccount(account);
  if (!found.exists) throw new Error(`account ${account} does not exist`);
  return new Uint8Array(found.data);
}

export function ownerOf(svm: LiteSVM, account: Address): Address | null {
  const found = svm.getAccount(account);
  return found.exists ? found.programAddress : null;
}

/** Places a rent-exempt account owned by `owner` holding `data` (how the local chain seeds the
 * programs' Config / Bank / Escrow accounts). */
export function placeAccount(
  svm: LiteSVM,
  account: Address,
  owner: Address,
  data: ReadonlyUint8Array,
  extraLamports = 0n,
): void {
  svm.setAccount({
    address: account,
    programAddress: owner,
    data: new Uint8Array(data),
    executable: false,
    lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(data.length)) + extraLamports),
    space: BigInt(data.length),
  });
}

/** Sends SOL with a System transfer (a buyer paying a SOL storage, for instance). */
export async function transferSol(svm: LiteSVM, from: KeyPairSigner, to: Address, amount: bigint): Promise<void> {
  await sendOk(svm, from, [getTransferSolInstruction({ source: from, destination: to, amount })]);
}

export interface TestMint {
  mint: Address;
  authority: KeyPairSigner;
  tokenProgram: Address;
  decimals: number;
}

export async function createMint(
  svm: LiteSVM,
  authority: KeyPairSigner,
  decimals = 6,
  tokenProgram: Address = TOKEN_PROGRAM_ADDRESS,
): Promise<TestMint> {
  const mint = await generateKeyPairSigner();
  const space = BigInt(getMintSize());
  await sendOk(svm, authority, [
    getCreateAccountInstruction({
      payer: authority,
      newAccount: mint,
      lamports: svm.minimumBalanceForRentExemption(space),
      space,
      programAddress: tokenProgram,
    }),
    getInitializeMint2Instruction(
      { mint: mint.address, decimals, mintAuthority: authority.address },
      { programAddress: tokenProgram },
    ),
  ]);
  return { mint: mint.address, authority, tokenProgram, decimals };
}

export async function ataOf(mint: TestMint, owner: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: mint.mint, tokenProgram: mint.tokenProgram });
  return ata;
}

/** Creates (idempotently) the ATA of `owner` for `mint`, paid by the mint authority. */
export async function createAta(svm: LiteSVM, mint: TestMint, owner: Address): Promise<Address> {
  const ata = await ataOf(mint, owner);
  await sendOk(svm, mint.authority, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: mint.authority,
      ata,
      owner,
      mint: mint.mint,
      tokenProgram: mint.tokenProgram,
    }),
  ]);
  return ata;
}

export async function mintTo(svm: LiteSVM, mint: TestMint, destination: Address, amount: bigint): Promise<void> {
  await sendOk(svm, mint.authority, [
    getMintToInstruction(
      { mint: mint.mint, token: destination, mintAuthority: mint.authority, amount },
      { programAddress: mint.tokenProgram },
    ),
  ]);
}

/** The amount field of a token account (offset 64 in Token and Token-2022). */
export function tokenBalance(svm: LiteSVM, tokenAccount: Address): bigint {
  return new DataView(dataOf(svm, tokenAccount).buffer).getBigUint64(64, true);
}

export { AccountRole };
