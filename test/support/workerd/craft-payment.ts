import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../src/chain/compute-budget";
import { vaultSolStorageOf } from "../../../src/rails/exact/vault-addresses";
import { TEST_FEE_PAYER } from "../keys";
import { latestBlockhash } from "./chain";
import { RESOURCE } from "./payment-fixtures";

/**
 * Hand-crafted payment transactions for the rejection rules: each test starts from the standard shape the
 * official client builds and changes exactly one thing.
 */
export const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const TOKEN_2022_PROGRAM = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
export const MEMO_PROGRAM = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
export const FEE_PAYER = address(TEST_FEE_PAYER.address);

export interface PaymentParts {
  buyer: KeyPairSigner;
  line: Record<string, any>;
  mint: Address;
  tokenProgram: Address;
  sourceAta: Address;
  vaultAta: Address;
  amount: bigint;
}

export async function paymentParts(
  buyer: KeyPairSigner,
  line: Record<string, any>,
  tokenProgram: Address = TOKEN_PROGRAM,
): Promise<PaymentParts> {
  const mint = address(line.asset);
  const [sourceAta] = await findAssociatedTokenPda({ owner: buyer.address, mint, tokenProgram });
  const [vaultAta] = await findAssociatedTokenPda({ owner: address(line.payTo), mint, tokenProgram });
  return { buyer, line, mint, tokenProgram, sourceAta, vaultAta, amount: BigInt(line.amount) };
}

export function memo(text: string, accounts: Address[] = []): Instruction {
  return {
    programAddress: MEMO_PROGRAM,
    accounts: accounts.map((a) => ({ address: a, role: AccountRole.READONLY_SIGNER })),
    data: new TextEncoder().encode(text),
  };
}

export function transferChecked(
  p: PaymentParts,
  overrides: Partial<{ amount: bigint; destination: Address; mint: Address; decimals: number }> = {},
): Instruction {
  return getTransferCheckedInstruction(
    {
      source: p.sourceAta,
      mint: overrides.mint ?? p.mint,
      destination: overrides.destination ?? p.vaultAta,
      authority: p.buyer,
      amount: overrides.amount ?? p.amount,
      decimals: overrides.decimals ?? 6,
    },
    { programAddress: p.tokenProgram },
  );
}

export async function solTransferToVault(
  buyer: KeyPairSigner,
  line: Record<string, any>,
  lamports: bigint,
): Promise<Instruction> {
  const storage = await vaultSolStorageOf(address(line.extra.programId), address(line.payTo));
  return getTransferSolInstruction({ source: buyer, destination: storage, amount: lamports });
}

/** The standard instruction list: limit, price, transfer, memo nonce. */
export function standardInstructions(p: PaymentParts): Instruction[] {
  return [
    getSetComputeUnitLimitInstruction(20_000),
    getSetComputeUnitPriceInstruction(1n),
    transferChecked(p),
    memo(crypto.randomUUID()),
  ];
}

/** Compiles, signs with the given signers (never the fee payer), and returns a verify/settle body. */
export async function craftBody(
  line: Record<string, any>,
  instructions: Instruction[],
  options: {
    signers: KeyPairSigner[];
    feePayer?: Address;
    blockhash?: { blockhash: Blockhash; lastValidBlockHeight: bigint };
  },
): Promise<Record<string, any>> {
  const lifetime = options.blockhash ?? (await latestBlockhash());
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(options.feePayer ?? FEE_PAYER, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await partiallySignTransaction(
    options.signers.map((s) => s.keyPair),
    compileTransaction(message),
  );
  return bodyFor(line, getBase64EncodedWireTransaction(signed));
}

export function bodyFor(line: Record<string, any>, transaction: string): Record<string, any> {
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, resource: RESOURCE, accepted: line, payload: { transaction } },
    paymentRequirements: line,
  };
}
