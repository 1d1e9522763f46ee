import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { inject } from "vitest";
import { MEMO_PROGRAM_ADDRESS } from "../../../src/chain/token-programs";
import { signWireTransaction } from "../sign-transaction";

let chainUrlInUse: string | null = null;

/**
 * The shared local chain of the worker tests (started by test/global-setup.ts), over plain JSON-RPC; another chain of
 * test/global-setup.ts while a test has switched to it (`useChain`).
 */
export function chainRpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
  return rpcAt<T>(chainUrlInUse ?? inject("localnetUrl"), method, params);
}

/**
 * Every helper here (and the fixtures built on them) talks to the chain at `url` until the returned function is
 * called: for a test that needs a chain of its own (beforeAll / afterAll around it; a file's tests run one at a time).
 */
export function useChain(url: string): () => void {
  chainUrlInUse = url;
  return () => {
    chainUrlInUse = null;
  };
}

/** One JSON-RPC call to the chain at `url` (the shared chain, or the warpable one of test/global-setup.ts). */
export async function rpcAt<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** A fresh buyer with SOL for its own needs and `usdcRaw` USDC from the local faucet. */
export async function fundedBuyer(usdcRaw = 10_000_000, lamports = 2_000_000_000): Promise<KeyPairSigner> {
  const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await chainRpc("requestAirdrop", [buyer.address, lamports]);
  if (usdcRaw > 0) await chainRpc("requestTokenAirdrop", [buyer.address, usdcRaw]);
  return buyer;
}

export async function tokenBalance(owner: Address): Promise<bigint> {
  const result = await chainRpc<{ value: { amount: string } }>("getTokenAccountBalance", [
    owner,
    { commitment: "confirmed" },
  ]);
  return BigInt(result.value.amount);
}

/** The account's data as the chain has it (confirmed), or null when the account does not exist. */
export async function accountData(account: Address): Promise<Uint8Array | null> {
  const result = await chainRpc<{ value: { data: [string, string] } | null }>("getAccountInfo", [
    account,
    { encoding: "base64", commitment: "confirmed" },
  ]);
  return result.value ? Uint8Array.from(atob(result.value.data[0]), (c) => c.charCodeAt(0)) : null;
}

export async function lamportsOf(account: Address): Promise<bigint> {
  const result = await chainRpc<{ value: number | string }>("getBalance", [account, { commitment: "confirmed" }]);
  return BigInt(result.value);
}

export async function latestBlockhash(): Promise<{ blockhash: Blockhash; lastValidBlockHeight: bigint }> {
  const result = await chainRpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [
    { commitment: "confirmed" },
  ]);
  return {
    blockhash: result.value.blockhash as Blockhash,
    lastValidBlockHeight: BigInt(result.value.lastValidBlockHeight),
  };
}

/** Signs a built transaction (base64) as `signers`, as their wallets would, and sends it; returns the signature. */
export async function signAndSend(base64: string, signers: KeyPairSigner[]): Promise<string> {
  return chainRpc<string>("sendTransaction", [
    await signWireTransaction(base64, signers),
    { encoding: "base64", preflightCommitment: "confirmed" },
  ]);
}

/**
 * A transaction of the test's own making: `feePayer` pays, every signer the instructions name signs, and it is sent
 * to the local chain on `lifetime` (by default the latest blockhash). Returns the signature; a refusal throws.
 */
export async function sendSigned(
  feePayer: KeyPairSigner,
  instructions: Instruction[],
  lifetime?: { blockhash: Blockhash; lastValidBlockHeight: bigint },
): Promise<string> {
  const blockhash = lifetime ?? (await latestBlockhash());
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await chainRpc("sendTransaction", [
    getBase64EncodedWireTransaction(signed),
    { encoding: "base64", preflightCommitment: "confirmed" },
  ]);
  return getSignatureFromTransaction(signed);
}

/**
 * A wallet's own transaction (it pays and signs) with a random Memo, so two identical ones in a slot are two (not
 * AlreadyProcessed).
 */
export async function sendAs(signer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
  return sendSigned(signer, [
    ...instructions,
    { programAddress: MEMO_PROGRAM_ADDRESS, data: new TextEncoder().encode(crypto.randomUUID()) },
  ]);
}

/**
 * Resolves once the chain has issued a blockhash other than the current one (a slot is 400 ms). Two facilitator
 * transactions with the same instructions on one blockhash are one transaction (the second is AlreadyProcessed), so
 * tests that sweep one rail twice with no cooldown wait for a new blockhash in between.
 */
export async function nextBlockhash(): Promise<void> {
  const latest = async () => (await latestBlockhash()).blockhash;
  const current = await latest();
  for (let i = 0; i < 40 && (await latest()) === current; i++) await new Promise((resolve) => setTimeout(resolve, 50));
}
