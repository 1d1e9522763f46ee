/**
 * Compatibility with the official x402 v2 TypeScript clients, end to end over real HTTP:
 *
 *   buyer  @x402/fetch wrapFetchWithPayment + @x402/svm ExactSvmScheme (client)  →  seller (demo/seller-server.ts)
 *   seller @x402/core HTTPFacilitatorClient  →  the real Worker (wrangler, workerd, local D1)  →  local chain
 *
 * Nothing here talks to the Worker's internals: the Worker is started with scripts/lib/run-worker.ts and the
 * chain with localnet/server.ts on free loopback ports.
 */

import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { HTTPFacilitatorClient } from "@x402/core/http";
import {
  type Network,
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  VerifyError,
} from "@x402/core/types";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activateSellerVault } from "../../../demo/activate-seller";
import { payWithBuildEndpoint } from "../../../demo/build-endpoint-buyer";
import { fundFromFaucet, signatureStatus, tokenAccountBalance } from "../../../demo/chain-rpc";
import { type RunningSellerServer, startSellerServer } from "../../../demo/seller-server";
import { CLUSTERS } from "../../../src/platform/config/networks";
import { withLocalWorker } from "../../support/node/local-worker";

const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;
/** 0.25 USDC: under the official client's default spend cap of $1 per payment. */
const PRICE_RAW = "250000";
const RESOURCE = { report: "quarterly numbers", rows: [1, 2, 3] };

const local = withLocalWorker({ feePayerLamports: 100_000_000_000 });
let seller: RunningSellerServer;

beforeAll(async () => {
  // The seller activates its own vault first, as the seller guide says (a 0.25 USDC payment is below the
  // just-in-time provisioning minimum of 1 USDC, so an unactivated seller would not be fronted a vault).
  const sellerWallet = await generateKeyPairSigner();
  await fundFromFaucet(local.chain.url, sellerWallet.address, 1_000_000_000);
  await activateSellerVault({
    facilitatorApi: local.api,
    rpcUrl: local.chain.url,
    seller: sellerWallet,
    asset: "USDC",
  });
  seller = await startSellerServer({
    facilitatorUrl: local.api,
    sellerWallet: sellerWallet.address,
    network: DEVNET,
    asset: USDC,
    amount: PRICE_RAW,
    content: RESOURCE,
  });
}, 120_000);

afterAll(async () => {
  await seller?.close();
}, 60_000);

async function fundedBuyer(usdcRaw: number): Promise<KeyPairSigner> {
  const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(local.chain.url, buyer.address, 1_000_000_000, usdcRaw);
  return buyer;
}

/**
 * The official client registered for devnet, pointed at the local chain (registerExactSvmScheme has no rpcUrl option).
 */
function officialClient(buyer: KeyPairSigner): x402Client {
  return new x402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: local.chain.url }));
}

async function vaultAtaOf(payTo: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({
    owner: payTo as never,
    mint: USDC as never,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return ata;
}

/** A fresh, signed payment for the seller's line, made by the official client (not sent anywhere yet). */
async function officialPayment(
  buyer: KeyPairSigner,
): Promise<{ payload: PaymentPayload; requirements: PaymentRequirements }> {
  const payload = await officialClient(buyer).createPaymentPayload(seller.paymentRequired);
  return { payload, requirements: seller.paymentRequired.accepts[0]! };
}

describe("official x402 clients against the real Worker", () => {
  it(
    "the seller's 402 is what the official client expects (PAYMENT-REQUIRED header, enriched vault " + "payTo)",
    async () => {
      const response = await fetch(seller.url);
      expect(response.status).toBe(402);
      const header = response.headers.get("PAYMENT-REQUIRED");
      expect(header).toBeTruthy();
      const decoded = JSON.parse(Buffer.from(header!, "base64").toString("utf8"));
      const line = decoded.accepts[0];
      expect(line).toMatchObject({ scheme: "exact", network: DEVNET, asset: USDC, amount: PRICE_RAW });
      expect(line.extra.feePayer).toBe(local.feePayer.address);
      expect(line.payTo).not.toBe(line.extra.merchantWallet);
      expect(await response.json()).toMatchObject({ x402Version: 2, accepts: [line] });
    },
  );

  it(
    "wrapFetchWithPayment pays, the seller settles through HTTPFacilitatorClient, the vault receives exactly the " +
      "price",
    async () => {
      const buyer = await fundedBuyer(1_000_000);
      const line = seller.paymentRequired.accepts[0]!;
      const vaultAta = await vaultAtaOf(line.payTo);
      const [buyerAta] = await findAssociatedTokenPda({
        owner: buyer.address,
        mint: USDC as never,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      });
      const vaultBefore = (await tokenAccountBalance(local.chain.url, vaultAta)) ?? 0n;

      const fetchWithPayment = wrapFetchWithPayment(fetch, officialClient(buyer));
      const response = await fetchWithPayment(seller.url, { method: "GET" });
      const text = await response.text();
      expect(response.status, `${text} / ${JSON.stringify(seller.settlements.at(-1))}`).toBe(200);
      expect(JSON.parse(text)).toEqual(RESOURCE);

      const paymentResponse = response.headers.get("PAYMENT-RESPONSE");
      expect(paymentResponse).toBeTruthy();
      const settled = decodePaymentResponseHeader(paymentResponse!);
      expect(settled).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
      expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/);

      const status = await signatureStatus(local.chain.url, settled.transaction);
      expect(status).not.toBeNull();
      expect(status!.err).toBeNull();
      expect(["confirmed", "finalized"]).toContain(status!.confirmationStatus);

      expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(vaultBefore + BigInt(PRICE_RAW));
      expect(await tokenAccountBalance(local.chain.url, buyerAta)).toBe(1_000_000n - BigInt(PRICE_RAW));
    },
  );

  it("a second paid request by another buyer settles into the now-existing vault", async () => {
    const buyer = await fundedBuyer(500_000);
    const vaultAta = await vaultAtaOf(seller.paymentRequired.accepts[0]!.payTo);
    const before = (await tokenAccountBalance(local.chain.url, vaultAta)) ?? 0n;
    const response = await wrapFetchWithPayment(fetch, officialClient(buyer))(seller.url);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(before + BigInt(PRICE_RAW));
  });

  it("a replayed PAYMENT-SIGNATURE is refused by the seller: one payment, one delivery", async () => {
    const buyer = await fundedBuyer(1_000_000);
    const { payload } = await officialPayment(buyer);
    const header = Buffer.from(JSON.stringify(payload)).toString("base64");
    const vaultAta = await vaultAtaOf(seller.paymentRequired.accepts[0]!.payTo);
    const before = (await tokenAccountBalance(local.chain.url, vaultAta)) ?? 0n;
    const first = await fetch(seller.url, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status, await first.clone().text()).toBe(200);
    // The same header again, and five more at once: the seller's settle hears duplicate_settlement every time.
    const replays = await Promise.all(
      Array.from({ length: 6 }, () => fetch(seller.url, { headers: { "PAYMENT-SIGNATURE": header } })),
    );
    for (const replay of replays) expect(replay.status).toBe(402);
    expect(seller.settlements.at(-1)).toMatchObject({ ok: false, reason: "duplicate_settlement" });
    expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(before + BigInt(PRICE_RAW));
  });

  it("a buyer without funds gets 402 again, and nothing moves", async () => {
    const buyer = await fundedBuyer(1_000); // far below the price
    const vaultAta = await vaultAtaOf(seller.paymentRequired.accepts[0]!.payTo);
    const before = await tokenAccountBalance(local.chain.url, vaultAta);
    const response = await wrapFetchWithPayment(fetch, officialClient(buyer))(seller.url);
    expect(response.status).toBe(402);
    const body = (await response.json()) as { error?: string };
    expect(body.error).toMatch(/insufficient_funds|simulation/);
    expect(response.headers.get("PAYMENT-RESPONSE")).toBeNull();
    expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(before);
  });
});

describe("HTTPFacilitatorClient understands our /supported, /verify and /settle", () => {
  let client: HTTPFacilitatorClient;
  beforeAll(() => {
    client = new HTTPFacilitatorClient({ url: local.api, timeoutMs: 30_000 });
  });

  it("getSupported() parses /supported", async () => {
    const supported = await client.getSupported();
    const exact = supported.kinds.find((kind) => kind.scheme === "exact" && kind.network === DEVNET);
    expect(exact).toBeDefined();
    expect(exact!.x402Version).toBe(2);
    expect(exact!.extra?.feePayer).toBe(local.feePayer.address);
    expect(supported.signers[DEVNET]).toContain(local.feePayer.address);
    // the Bazaar discovery API (GET /discovery/resources) and payment-identifier idempotency
    expect(supported.extensions).toEqual(["bazaar", "payment-identifier"]);
  });

  it("verify() of a valid official payment returns isValid true with the payer", async () => {
    const buyer = await fundedBuyer(1_000_000);
    const { payload, requirements } = await officialPayment(buyer);
    const verified = await client.verify(payload, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: buyer.address });
  });

  it("verify() with requirements that differ from accepted throws VerifyError carrying our invalidReason", async () => {
    const buyer = await fundedBuyer(1_000_000);
    const { payload, requirements } = await officialPayment(buyer);
    const tampered = { ...requirements, amount: "1" };
    const error = await client.verify(payload, tampered).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VerifyError);
    const verifyError = error as VerifyError;
    expect(verifyError.statusCode).toBe(400);
    expect(verifyError.invalidReason).toBe("invalid_payload_requirements_mismatch");
    expect(verifyError.invalidMessage).toMatch(
      /paymentRequirements\.amount is "1" but paymentPayload\.accepted\.amount is/,
    );
  });

  it(
    "verify() of a payment whose transfer amount differs from the (consistent) requirements: amount " + "mismatch",
    async () => {
      const buyer = await fundedBuyer(1_000_000);
      const { payload, requirements } = await officialPayment(buyer);
      const cheaper = { ...requirements, amount: String(BigInt(PRICE_RAW) + 1n) };
      const error = await client.verify({ ...payload, accepted: cheaper }, cheaper).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(VerifyError);
      expect((error as VerifyError).invalidReason).toBe("invalid_exact_svm_payload_amount_mismatch");
    },
  );

  it("verify() of a garbage transaction: could_not_be_decoded", async () => {
    const { payload, requirements } = await officialPayment(await fundedBuyer(1_000_000));
    const garbage = {
      ...payload,
      payload: { transaction: Buffer.from("definitely not a transaction").toString("base64") },
    };
    const error = await client.verify(garbage, requirements).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VerifyError);
    expect((error as VerifyError).invalidReason).toBe("invalid_exact_svm_payload_transaction_could_not_be_decoded");
  });

  it("settle() of a garbage transaction throws SettleError carrying our errorReason and network", async () => {
    const { payload, requirements } = await officialPayment(await fundedBuyer(1_000_000));
    const garbage = { ...payload, payload: { transaction: Buffer.from("still not a transaction").toString("base64") } };
    const error = await client.settle(garbage, requirements).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SettleError);
    const settleError = error as SettleError;
    expect(settleError.statusCode).toBe(400);
    expect(settleError.errorReason).toBe("invalid_exact_svm_payload_transaction_could_not_be_decoded");
    expect(settleError.network).toBe(DEVNET);
    expect(settleError.transaction).toBe("");
  });

  it("settle() of a tampered body (requirements ≠ accepted) throws SettleError, and nothing is sent", async () => {
    const buyer = await fundedBuyer(1_000_000);
    const { payload, requirements } = await officialPayment(buyer);
    const error = await client
      .settle(payload, { ...requirements, maxTimeoutSeconds: requirements.maxTimeoutSeconds + 1 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SettleError);
    expect((error as SettleError).errorReason).toBe("invalid_payload_requirements_mismatch");
    const [buyerAta] = await findAssociatedTokenPda({
      owner: buyer.address,
      mint: USDC as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    expect(await tokenAccountBalance(local.chain.url, buyerAta)).toBe(1_000_000n);
  });

  it(
    "settle() of a valid payment succeeds once; settling it again is a duplicate_settlement naming the same " +
      "transaction",
    async () => {
      const buyer = await fundedBuyer(1_000_000);
      const { payload, requirements } = await officialPayment(buyer);
      const first = await client.settle(payload, requirements);
      expect(first).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
      const again = await client.settle(payload, requirements).then(
        () => null,
        (e: unknown) => e,
      );
      expect(again).toBeInstanceOf(SettleError);
      expect(again).toMatchObject({ errorReason: "duplicate_settlement", transaction: first.transaction });
      const status = await signatureStatus(local.chain.url, first.transaction);
      expect(status?.err).toBeNull();
    },
  );
});

describe(
  "the spec's buyer flow (build, sign at payerSignatureIndex, filled template in PAYMENT-SIGNATURE) through " +
    "the same seller",
  () => {
    for (const headerEncoding of ["base64", "json"] as const) {
      it(`settles a template sent as ${headerEncoding === "json" ? "raw JSON" : "base64 JSON"}`, async () => {
        const buyer = await fundedBuyer(1_000_000);
        const vaultAta = await vaultAtaOf(seller.paymentRequired.accepts[0]!.payTo);
        const before = (await tokenAccountBalance(local.chain.url, vaultAta)) ?? 0n;
        const paid = await payWithBuildEndpoint({
          resourceUrl: seller.url,
          facilitatorApi: local.api,
          buyer,
          network: DEVNET,
          headerEncoding,
        });
        expect(paid.status, paid.body).toBe(200);
        expect(JSON.parse(paid.body)).toEqual(RESOURCE);
        expect(paid.paymentResponse).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
        expect((await signatureStatus(local.chain.url, paid.paymentResponse!.transaction))?.err).toBeNull();
        expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(before + BigInt(PRICE_RAW));
      });
    }
  },
);
