/**
 * The official x402 Solana client (@x402/svm) builds an `exact` payment against the local chain as
 * against devnet (mint lookup, blockhash), and the facilitator-side steps it expects — simulate the
 * partially signed transaction, co-sign, send without preflight, poll the status — work.
 */
import {
  address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  signature as toSignature,
} from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTERS } from "../../src/platform/config/networks";
import { fundedSigner, startTestChain, type TestChain } from "./helpers";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const USDC = address(CLUSTERS.devnet.usdcMint);

let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain.localnet.close();
});

describe("official x402 client on the local chain", () => {
  it("pays an exact USDC requirement end to end (facilitator as fee payer)", async () => {
    const buyer = await generateKeyPairSigner();
    const seller = (await generateKeyPairSigner()).address;
    const facilitator = await fundedSigner(chain, 1_000_000_000n);
    await chain.raw("requestTokenAirdrop", [buyer.address, 5_000_000]);
    await chain.raw("requestTokenAirdrop", [seller, 1]); // the payTo ATA must exist

    const client = new ExactSvmScheme(buyer as never, { rpcUrl: chain.localnet.url });
    const payload = await client.createPaymentPayload(2, {
      scheme: "exact",
      network: CLUSTERS.devnet.network,
      asset: USDC,
      amount: "1000000",
      payTo: seller,
      maxTimeoutSeconds: 60,
      extra: { feePayer: facilitator.address },
    } as never);
    const wire = (payload as unknown as { payload: { transaction: string } }).payload.transaction;

    // Facilitator: simulate the buyer-signed transaction (its own signature still missing).
    const simulation = await chain.rpc
      .simulateTransaction(wire as never, { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false })
      .send();
    expect(simulation.value.err).toBeNull();

    // Facilitator: co-sign and send without preflight, then poll.
    const decoded = getTransactionDecoder().decode(Buffer.from(wire, "base64"));
    const signed = await partiallySignTransaction([facilitator.keyPair], decoded);
    const sent = await chain.rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64", skipPreflight: true })
      .send();
    expect(sent).toBe(getSignatureFromTransaction(signed));
    const status = await chain.rpc.getSignatureStatuses([toSignature(sent)]).send();
    expect(status.value[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });

    const [sellerAccount] = await findAssociatedTokenPda({ owner: seller, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect((await chain.rpc.getTokenAccountBalance(sellerAccount).send()).value.amount).toBe("1000001");
    const transaction = await chain.rpc
      .getTransaction(toSignature(sent), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(transaction?.transaction.message.accountKeys[0]).toBe(facilitator.address);
    // 2 signatures + ceil(1 µlamport × 20,000 CU / 10^6) = 10,001 lamports
    expect(transaction?.meta?.fee).toBe(10_001n);
    const [before, after] = [transaction?.meta?.preBalances[0] ?? 0n, transaction?.meta?.postBalances[0] ?? 0n];
    expect(before - after).toBe(10_001n); // what the runtime actually charged
  });
});
