/**
 * Issue 24 §5: `upto` end to end with the official packages only, paying through a facilitator over HTTP on the local
 * chain (payment-channels stand-in): the official seller middleware (`@x402/hono` paymentMiddleware +
 * HTTPFacilitatorClient + the official `@x402/svm/upto/server` scheme holding the seller's voucher key) and the
 * official buyer (`@x402/fetch` + `@x402/svm/upto/client`), and a buyer without any Solana SDK that builds its
 * deposit through POST /build-upto-deposit-tx.
 *
 *   - usage below the ceiling: deposit before the handler, the handler reports what it used
 *     (setSettlementOverrides), the claim pays exactly that to the seller and the rest returns to the buyer;
 *   - a handler that fails: the middleware cancels (zero-amount claim), everything returns to the buyer;
 *   - a replayed claim is a `duplicate_settlement` and a replayed deposit is refused; neither moves anything;
 *   - every balance is read back from the chain to the unit.
 *
 * Real: the local chain, this facilitator (the Worker as npm start serves it), the official packages. The buyer reaches
 * the Hono seller app through app.fetch in process; the seller reaches the facilitator over HTTP (recorded by a
 * subclass of the official HTTPFacilitatorClient, so the claim can be replayed exactly as the seller sent it).
 */

import {
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  generateKeyPairSigner,
  getBase58Decoder,
  type KeyPairSigner,
  signBytes,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { paymentMiddleware, setSettlementOverrides, x402ResourceServer } from "@x402/hono";
import { UptoSvmScheme as UptoSvmClientScheme } from "@x402/svm/upto/client";
import { UptoSvmScheme as UptoSvmServerScheme } from "@x402/svm/upto/server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signAtIndex } from "../../../../demo/build-endpoint-buyer";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../../demo/chain-rpc";
import { type RunningLocalnet, startLocalnet } from "../../../../localnet/server";
import { randomKeypair } from "../../../../scripts/lib/keypair";
import { startWorker } from "../../../../scripts/lib/run-worker";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { CHANNEL_STATUS, decodeChannel } from "../../../../src/rails/upto/program/accounts";

const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint as Address;
const CEILING = 800_000n; // "$0.80", under the official buyer's default spend cap of $1
const USED = 512_345n;
const BUYER_USDC = 5_000_000n;

let chain: RunningLocalnet;
const cleanups: (() => Promise<void>)[] = [];
let facilitatorUrl: string;
let seller: Address;
let sellerWallet: KeyPairSigner;
let sellerFetch: typeof fetch;
/** Every settle the seller's facilitator client sent, with its answer. */
const settles: {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  answer: { success: boolean; errorReason?: string };
}[] = [];

/** The official client, recording each /settle it makes (the test replays them). */
class RecordingFacilitatorClient extends HTTPFacilitatorClient {
  override async settle(payload: PaymentPayload, requirements: PaymentRequirements) {
    const answer = await super.settle(payload, requirements);
    settles.push({ payload, requirements, answer });
    return answer;
  }
}

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, quiet: true });
  cleanups.push(() => chain.close());
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 100_000_000_000);
  const worker = await startWorker({ rpcUrl: chain.url, feePayerSecretKeyBase58: feePayer.secretKeyBase58 });
  cleanups.push(worker.stop);
  facilitatorUrl = `${worker.url}/api/v1/facilitator`;

  sellerWallet = await generateKeyPairSigner();
  seller = sellerWallet.address;
  // the seller's USDC account exists (a share to a missing one goes to the treasury)
  await fundFromFaucet(chain.url, seller, 0, 1);
  const voucherKey = await generateKeyPairSigner();

  // The official docs' setup (examples/typescript/servers/upto), with the Solana upto scheme.
  const app = new Hono();
  const resourceServer = new x402ResourceServer(new RecordingFacilitatorClient({ url: facilitatorUrl })).register(
    DEVNET,
    new UptoSvmServerScheme({ receiverAuthorizerSigner: voucherKey, rpcUrl: chain.url }),
  );
  app.use(
    paymentMiddleware(
      {
        "GET /generate": {
          accepts: { scheme: "upto", price: "$0.80", network: DEVNET, payTo: seller },
          description: "Text generation, billed by tokens",
        },
        "GET /broken": {
          accepts: { scheme: "upto", price: "$0.80", network: DEVNET, payTo: seller },
          description: "A handler that fails",
        },
      },
      resourceServer,
    ),
  );
  app.get("/generate", (c) => {
    setSettlementOverrides(c, { amount: USED.toString() });
    return c.json({ text: "generated", used: USED.toString() });
  });
  app.get("/broken", (c) => c.json({ error: "model unavailable" }, 500));
  sellerFetch = ((input: RequestInfo | URL, init?: RequestInit) => app.fetch(new Request(input, init))) as typeof fetch;
}, 120_000);

afterAll(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => {});
}, 60_000);

async function fundedBuyer(): Promise<KeyPairSigner> {
  const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(chain.url, buyer.address, 1_000_000_000, BUYER_USDC);
  return buyer;
}

async function usdcOf(owner: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return (await tokenAccountBalance(chain.url, ata)) ?? 0n;
}

async function channelStatus(channel: string): Promise<number | null> {
  const info = await chainRpc<{ value: { data: [string, string] } | null }>(chain.url, "getAccountInfo", [
    channel,
    { encoding: "base64", commitment: "confirmed" },
  ]);
  return info.value === null ? null : (decodeChannel(Buffer.from(info.value.data[0], "base64"))?.status ?? null);
}

/** Pays `path` as the official buyer; returns the response and the PAYMENT-SIGNATURE header it sent. */
async function payAsOfficialBuyer(buyer: KeyPairSigner, path: string): Promise<{ response: Response; header: string }> {
  let header: string | null = null;
  const recordingFetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    header = request.headers.get("PAYMENT-SIGNATURE") ?? header;
    return sellerFetch(request);
  }) as typeof fetch;
  const client = new x402Client().register(DEVNET, new UptoSvmClientScheme(buyer, { rpcUrl: chain.url }));
  const response = await wrapFetchWithPayment(recordingFetch, client)(`http://seller.test${path}`);
  expect(header, "the buyer sent a payment").toBeTruthy();
  return { response, header: header! };
}

/** The seller's own payment history (POST /seller/payments, with a signed seller:payments challenge). */
async function sellerHistory(): Promise<{ outcome: string; amount: string; role: string | null }[]> {
  const challenge = (await (
    await fetch(`${facilitatorUrl}/sellers/${seller}/challenge?action=seller:payments`)
  ).json()) as { message: string };
  const signature = await signBytes(sellerWallet.keyPair.privateKey, new TextEncoder().encode(challenge.message));
  const response = await fetch(`${facilitatorUrl}/seller/payments`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      wallet: seller,
      message: challenge.message,
      signature: getBase58Decoder().decode(signature),
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { entries: { outcome: string; amount: string; role: string | null }[] }).entries;
}

async function replaySettle(recorded: (typeof settles)[number]): Promise<{ success: boolean; errorReason?: string }> {
  const response = await fetch(`${facilitatorUrl}/settle`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      x402Version: 2,
      paymentPayload: recorded.payload,
      paymentRequirements: recorded.requirements,
    }),
  });
  return (await response.json()) as { success: boolean; errorReason?: string };
}

describe("upto through the official seller middleware and the official buyer", () => {
  it("deposits the ceiling, claims what the handler used, returns the rest; replays move nothing", async () => {
    const buyer = await fundedBuyer();
    const sellerBefore = await usdcOf(seller);
    settles.length = 0;

    const { response, header } = await payAsOfficialBuyer(buyer, "/generate");
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ text: "generated", used: USED.toString() });

    // Two settles: the deposit (before the handler) and the claim (after it), both successful.
    expect(settles.map((s) => [s.payload.payload.type, s.requirements.amount, s.answer.success])).toEqual([
      ["deposit", CEILING.toString(), true],
      ["claim", USED.toString(), true],
    ]);
    expect(await usdcOf(seller)).toBe(sellerBefore + USED);
    expect(await usdcOf(buyer.address)).toBe(BUYER_USDC - USED);
    const channel = settles[0]!.payload.payload.channelId as string;
    expect([CHANNEL_STATUS.DISTRIBUTED, null]).toContain(await channelStatus(channel));

    // The seller's history counts the sale once: the claim is the sale, the deposit before it only held the ceiling.
    // (Each attempt row is written after its answer: wait for both.)
    const settledRows = async () =>
      (await sellerHistory()).filter((entry) => entry.outcome === "settled").map((entry) => [entry.role, entry.amount]);
    await expect.poll(settledRows, { timeout: 10_000 }).toEqual([
      ["sale", USED.toString()],
      ["deposit", CEILING.toString()],
    ]);

    // The claim again, byte for byte as the seller sent it: refused, nothing moves.
    const replayedClaim = await replaySettle(settles[1]!);
    expect(replayedClaim).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
    // The deposit again through the seller (the buyer's header replayed): refused before the handler.
    const replayedRequest = await sellerFetch("http://seller.test/generate", {
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(replayedRequest.status).toBe(402);
    expect(await usdcOf(seller)).toBe(sellerBefore + USED);
    expect(await usdcOf(buyer.address)).toBe(BUYER_USDC - USED);
  });

  it("a failing handler cancels: the whole deposit returns to the buyer and the seller gets nothing", async () => {
    const buyer = await fundedBuyer();
    const sellerBefore = await usdcOf(seller);
    settles.length = 0;

    const { response } = await payAsOfficialBuyer(buyer, "/broken");
    expect(response.status).toBe(500);
    expect(settles.map((s) => [s.payload.payload.type, s.requirements.amount, s.answer.success])).toEqual([
      ["deposit", CEILING.toString(), true],
      ["claim", "0", true],
    ]);
    expect(await usdcOf(buyer.address)).toBe(BUYER_USDC);
    expect(await usdcOf(seller)).toBe(sellerBefore);
    const channel = settles[0]!.payload.payload.channelId as string;
    expect([CHANNEL_STATUS.DISTRIBUTED, null]).toContain(await channelStatus(channel));

    // In the history the cancel is a sale of nothing; the deposit it returned is no sale either.
    const settledRows = async () =>
      (await sellerHistory())
        .filter((entry) => entry.outcome === "settled")
        .slice(0, 2)
        .map((entry) => [entry.role, entry.amount]);
    await expect.poll(settledRows, { timeout: 10_000 }).toEqual([
      ["sale", "0"],
      ["deposit", CEILING.toString()],
    ]);
  });

  it(
    "a buyer without a Solana SDK builds its deposit through /build-upto-deposit-tx and pays the same " + "seller",
    async () => {
      const buyer = await fundedBuyer();
      const sellerBefore = await usdcOf(seller);
      settles.length = 0;

      const challenge = await sellerFetch("http://seller.test/generate");
      expect(challenge.status).toBe(402);
      const paymentRequired = JSON.parse(
        Buffer.from(challenge.headers.get("PAYMENT-REQUIRED")!, "base64").toString("utf8"),
      );
      const accepted = paymentRequired.accepts.find((line: PaymentRequirements) => line.scheme === "upto");
      const built = await fetch(`${facilitatorUrl}/build-upto-deposit-tx`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ payer: buyer.address, accepted, resource: paymentRequired.resource }),
      });
      expect(built.status).toBe(200);
      const { transaction, payerSignatureIndex, verifyBodyTemplate } = (await built.json()) as any;
      const openTransaction = await signAtIndex(transaction, payerSignatureIndex, buyer); // what a wallet does
      const paymentPayload = {
        ...verifyBodyTemplate.paymentPayload,
        payload: { ...verifyBodyTemplate.paymentPayload.payload, openTransaction },
      };

      const paid = await sellerFetch("http://seller.test/generate", {
        headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(paymentPayload)).toString("base64") },
      });
      expect(paid.status, await paid.clone().text()).toBe(200);
      expect(settles.map((s) => [s.payload.payload.type, s.requirements.amount, s.answer.success])).toEqual([
        ["deposit", CEILING.toString(), true],
        ["claim", USED.toString(), true],
      ]);
      expect(await usdcOf(seller)).toBe(sellerBefore + USED);
      expect(await usdcOf(buyer.address)).toBe(BUYER_USDC - USED);
    },
  );
});
