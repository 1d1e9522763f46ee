/**
 * Issue 8 item 6: the official seller middleware (`@x402/hono` paymentMiddleware + HTTPFacilitatorClient +
 * the official ExactSvmScheme server, with its rpcUrl option) configured as the official docs show, with one
 * change: payTo is the seller's vault from GET /sellers/{wallet}/rails/exact. Paid by the official buyer client.
 * Real: the local chain, the Worker under wrangler, the official packages. The buyer reaches the Hono seller app
 * through app.fetch in process (no socket in between); the seller reaches the facilitator over HTTP.
 */

import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { paymentMiddleware, x402ResourceServer } from "@x402/hono";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { activateSellerVault } from "../../../demo/activate-seller";
import { fundFromFaucet, tokenAccountBalance } from "../../../demo/chain-rpc";
import { CLUSTERS } from "../../../src/platform/config/networks";
import { withLocalWorker } from "../../support/node/local-worker";

const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;
const CONTENT = { weather: "sunny" };

const local = withLocalWorker({ feePayerLamports: 100_000_000_000 });
let sellerFetch: typeof fetch;
let vault: string;

beforeAll(async () => {
  const facilitatorUrl = `${local.worker.url}/api/v1/facilitator`;

  // The seller activates its vault and asks the facilitator for its payTo.
  const seller = await generateKeyPairSigner();
  await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000);
  await activateSellerVault({ facilitatorApi: facilitatorUrl, rpcUrl: local.chain.url, seller, asset: "USDC" });
  const rail = (await (await fetch(`${facilitatorUrl}/sellers/${seller.address}/rails/exact`)).json()) as {
    payTo: string;
  };
  vault = rail.payTo;

  // The official docs' Hono setup; only payTo comes from the facilitator.
  const app = new Hono();
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(
    DEVNET,
    new ExactSvmServerScheme({ rpcUrl: local.chain.url }),
  );
  app.use(
    paymentMiddleware(
      {
        "GET /weather": {
          accepts: { scheme: "exact", price: "$0.25", network: DEVNET, payTo: vault },
          description: "Weather",
        },
      },
      resourceServer,
    ),
  );
  app.get("/weather", (c) => c.json(CONTENT));
  sellerFetch = ((input: RequestInfo | URL, init?: RequestInit) => app.fetch(new Request(input, init))) as typeof fetch;
}, 120_000);

async function fundedBuyer(): Promise<KeyPairSigner> {
  const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(local.chain.url, buyer.address, 1_000_000_000, 1_000_000);
  return buyer;
}

describe("the official seller middleware in front of this facilitator", () => {
  it("a paid request settles into the vault once, and a replayed PAYMENT-SIGNATURE is refused", async () => {
    const buyer = await fundedBuyer();
    const [vaultAta] = await findAssociatedTokenPda({
      owner: vault as never,
      mint: USDC as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const before = (await tokenAccountBalance(local.chain.url, vaultAta)) ?? 0n;

    // Capture the header the official buyer sends, to replay it afterwards.
    let paymentHeader: string | null = null;
    const recordingFetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      paymentHeader = request.headers.get("PAYMENT-SIGNATURE") ?? paymentHeader;
      return sellerFetch(request);
    }) as typeof fetch;
    const paid = await wrapFetchWithPayment(
      recordingFetch,
      new x402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: local.chain.url })),
    )("http://seller.test/weather");
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await paid.json()).toEqual(CONTENT);
    expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(before + 250_000n);
    expect(paymentHeader).toBeTruthy();

    const replay = await sellerFetch("http://seller.test/weather", {
      headers: { "PAYMENT-SIGNATURE": paymentHeader! },
    });
    expect(replay.status).toBe(402);
    expect(await tokenAccountBalance(local.chain.url, vaultAta)).toBe(before + 250_000n);
  });
});
