import { expect, inject } from "vitest";
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Instruction,
  createKeyPairSignerFromPrivateKeyBytes,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
  type Address,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda, getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstruction, getTransferInstruction } from "@solana-program/token";
import { call } from "./helpers";
import { CLUSTERS } from "../../src/config/networks";

/** Shared fixtures for payment tests: real buyers funded on the local chain, real enrich and build calls. */

export const DEVNET = CLUSTERS.devnet.network;
export const USDC = address(CLUSTERS.devnet.usdcMint);
export const NATIVE_SOL = address("11111111111111111111111111111111");
export const PROGRAM_ID = address(CLUSTERS.devnet.universalSettleProgramId);
export const RESOURCE = { url: "https://seller.example/report", mimeType: "application/json" };

export async function chainRpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(inject("localnetUrl"), {
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

/**
 * A new seller that activated its own vault for `asset` through /sellers/provision-tx (signed and paid by the
 * seller, as the seller guide says), so that payments to it need no just-in-time provisioning.
 */
export async function activatedSeller(asset: Address): Promise<Address> {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  const built = await call("/sellers/provision-tx", {
    method: "POST",
    json: { wallet: seller.address, asset: asset === NATIVE_SOL ? "SOL" : asset },
    headers: { "CF-Connecting-IP": `seller-${crypto.randomUUID()}` },
  });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(built.body.transaction));
  const signed = await partiallySignTransaction([seller.keyPair], tx);
  await chainRpc("sendTransaction", [getBase64EncodedWireTransaction(signed), { encoding: "base64" }]);
  return seller.address;
}

/** A seller's `accepts[]` line as /payment-required/enrich produces it (by default a new, activated seller). */
export async function enrichedLine(asset: Address, amount: string, seller?: Address): Promise<Record<string, any>> {
  const wallet = seller ?? (await activatedSeller(asset));
  const response = await call("/payment-required/enrich", {
    method: "POST",
    json: { x402Version: 2, resource: RESOURCE, accepts: [{ scheme: "exact", network: DEVNET, asset, amount, payTo: wallet, maxTimeoutSeconds: 60 }] },
  });
  expect(response.status).toBe(200);
  return response.body.accepts[0];
}

let clientCounter = 0;

/** Builds through /build-exact-payment-tx, signs as the buyer, and returns the filled verify/settle body. */
export async function signedPaymentBody(buyer: KeyPairSigner, line: Record<string, any>): Promise<Record<string, any>> {
  const built = await call("/build-exact-payment-tx", {
    method: "POST",
    json: { payer: buyer.address, accepted: line, resource: RESOURCE },
    headers: { "CF-Connecting-IP": `10.9.${Math.floor(clientCounter / 250)}.${clientCounter++ % 250}` },
  });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  const template = built.body.verifyBodyTemplate;
  template.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
  return template;
}

export async function signAsBuyer(base64: string, buyer: KeyPairSigner): Promise<string> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const signed = await partiallySignTransaction([buyer.keyPair], tx);
  return getBase64EncodedWireTransaction(signed);
}

export async function tokenBalance(owner: Address): Promise<bigint> {
  const result = await chainRpc<{ value: { amount: string } }>("getTokenAccountBalance", [owner, { commitment: "confirmed" }]);
  return BigInt(result.value.amount);
}

export async function lamportsOf(account: Address): Promise<bigint> {
  const result = await chainRpc<{ value: number | string }>("getBalance", [account, { commitment: "confirmed" }]);
  return BigInt(result.value);
}

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const MEMO_PROGRAM = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

/** A wallet's own transaction (it pays and signs), sent to the local chain; returns the signature. */
export async function sendAs(signer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
  const { value } = await chainRpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(signer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: value.blockhash as Blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) }, m),
    // A random memo keeps two identical requests within one blockhash from being one transaction (AlreadyProcessed).
    (m) => appendTransactionMessageInstructions([...instructions, { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode(crypto.randomUUID()) }], m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await chainRpc("sendTransaction", [getBase64EncodedWireTransaction(signed), { encoding: "base64" }]);
  return getSignatureFromTransaction(signed);
}

export async function usdcAccountOf(owner: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM }))[0];
}

/** Creates `owner`'s USDC token account, paid by `payer` (any wallet can: README "Sweeps"). */
export async function createUsdcAccount(owner: Address, payer: KeyPairSigner): Promise<Address> {
  const ata = await usdcAccountOf(owner);
  await sendAs(payer, [getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner, mint: USDC, tokenProgram: TOKEN_PROGRAM })]);
  return ata;
}

/** The owner empties its USDC token account into `sink` and closes it: the rent goes back to the owner. */
export async function drainAndCloseUsdcAccount(owner: KeyPairSigner, sink: Address): Promise<void> {
  const ata = await usdcAccountOf(owner.address);
  const amount = await tokenBalance(ata);
  await sendAs(owner, [
    ...(amount > 0n ? [getTransferInstruction({ source: ata, destination: sink, authority: owner, amount })] : []),
    getCloseAccountInstruction({ account: ata, destination: owner.address, owner }),
  ]);
}

/**
 * Resolves once the chain has issued a blockhash other than the current one (a slot is 400 ms). Two facilitator
 * transactions with the same instructions on one blockhash are one transaction (the second is AlreadyProcessed), so
 * tests that sweep one rail twice with no cooldown wait for a new blockhash in between.
 */
export async function nextBlockhash(): Promise<void> {
  const latest = async () => (await chainRpc<{ value: { blockhash: string } }>("getLatestBlockhash", [{ commitment: "confirmed" }])).value.blockhash;
  const current = await latest();
  for (let i = 0; i < 40 && (await latest()) === current; i++) await new Promise((resolve) => setTimeout(resolve, 50));
}
