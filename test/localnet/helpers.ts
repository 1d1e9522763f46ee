/**
 * Shared plumbing for the local chain tests: a started chain, a kit RPC client, a raw JSON-RPC
 * caller for the local extensions (and for asserting exact wire JSON), and transaction builders.
 */
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  type Rpc,
  type SolanaRpcApi,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Transaction,
  blockhash as toBlockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { type JsonValue, parseJsonWithBigInts, stringifyJsonWithBigInts } from "../../localnet/json-bigint";
import { type RunningLocalnet, startLocalnet } from "../../localnet/server";

export interface TestChain {
  localnet: RunningLocalnet;
  rpc: Rpc<SolanaRpcApi>;
  /** One JSON-RPC call; returns the whole response object (result or error). */
  raw(
    method: string,
    params?: unknown[],
  ): Promise<{ result?: JsonValue; error?: { code: number; message: string; data?: JsonValue } }>;
  /** POSTs an arbitrary body and returns the parsed reply. */
  post(body: string): Promise<JsonValue>;
}

export async function startTestChain(): Promise<TestChain> {
  return testChainOf(await startLocalnet({ port: 0, quiet: true }));
}

/** The test clients of a chain already started (e.g. with options of its own). */
export function testChainOf(localnet: RunningLocalnet): TestChain {
  const post = async (body: string) => {
    const response = await fetch(localnet.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return parseJsonWithBigInts(await response.text());
  };
  return {
    localnet,
    rpc: createSolanaRpc(localnet.url),
    post,
    raw: async (method, params = []) =>
      (await post(stringifyJsonWithBigInts({ jsonrpc: "2.0", id: 1, method, params }))) as never,
  };
}

export async function fundedSigner(chain: TestChain, lamports = 10_000_000_000n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  await chain.rpc.requestAirdrop(signer.address, lamports as never).send();
  return signer;
}

export interface Lifetime {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

export async function latestLifetime(chain: TestChain): Promise<Lifetime> {
  const { value } = await chain.rpc.getLatestBlockhash().send();
  return value;
}

/** A signed v0 transaction paid by `payer` with the given instructions. */
export async function signedTransaction(
  payer: KeyPairSigner,
  instructions: Instruction[],
  lifetime: Lifetime,
): Promise<Transaction & { signature: string; wire: string }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(payer, draft),
    (draft) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: toBlockhash(lifetime.blockhash), lastValidBlockHeight: lifetime.lastValidBlockHeight },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  return {
    ...transaction,
    signature: getSignatureFromTransaction(transaction),
    wire: getBase64EncodedWireTransaction(transaction),
  };
}

export async function transferTransaction(
  from: KeyPairSigner,
  to: string,
  lamports: bigint,
  lifetime: Lifetime,
): Promise<Transaction & { signature: string; wire: string }> {
  return signedTransaction(
    from,
    [getTransferSolInstruction({ source: from, destination: address(to), amount: lamports })],
    lifetime,
  );
}

/** Sends a base64 transaction through kit; resolves to the signature or rejects with kit's error. */
export async function send(chain: TestChain, wire: string, skipPreflight = false): Promise<string> {
  return chain.rpc.sendTransaction(wire as never, { encoding: "base64", skipPreflight }).send();
}

/** Calls `fn` and returns what it threw (fails the test when nothing is thrown). */
export async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
