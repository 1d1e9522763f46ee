/**
 * `exact` to the seller's own wallet, end to end: a stock seller (the official `@x402/hono` middleware as the x402 docs
 * configure it, only the facilitator URL changed, its own wallet as payTo) paid by the official buyer client,
 * `x402-solana` and `@dexterai/x402` — the two libraries that refuse a vault payTo
 * (test/e2e/x402/client-libraries.test.ts). And a mainnet deployment out of the box: a Worker started with
 * wrangler.toml's `[env.production]` settings and no UNIVERSAL_SETTLE_PROGRAM_ID serves exact in its wallet form (with
 * the sponsorship policy it publishes), escrow and upto. Real: the local chain, the Worker under workerd (the
 * production bundle, local D1), each library as published. The buyers reach the Hono seller through app.fetch in
 * process; the seller reaches the facilitator over HTTP.
 */
import path from "node:path";
import { wrapFetch as dexterWrapFetch } from "@dexterai/x402/client";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { Keypair, type VersionedTransaction } from "@solana/web3.js";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { paymentMiddleware, x402ResourceServer } from "@x402/hono";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { createX402Client } from "x402-solana/client";
import { fundFromFaucet, tokenAccountBalance } from "../../../../demo/chain-rpc";
import { randomKeypair } from "../../../../scripts/lib/keypair";
import { type RunningWorker, startWorker } from "../../../../scripts/lib/run-worker";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../src/rails/sla-escrow/cluster-defaults";
import { withLocalWorker } from "../../../support/node/local-worker";

const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;
const CONTENT = { weather: "sunny" };
const PRICE_RAW = 10_000n; // $0.01

// The local default of SVC_EXACT_WALLET_PAYTO is on: nothing to set.
const local = withLocalWorker({ feePayerLamports: 100_000_000_000 });
let seller: KeyPairSigner;
let sellerAta: string;
let sellerFetch: typeof fetch;

beforeAll(async () => {
  seller = await createKeyPairSignerFromBytes(randomKeypair().secretKey);
  // A stock seller already holds USDC, so its token account exists (the facilitator creates none for a wallet payTo).
  await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000, 1);
  [sellerAta] = await findAssociatedTokenPda({
    owner: seller.address,
    mint: USDC as never,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });

  // The official docs' Hono setup, as a seller copies it: its own wallet as payTo, our URL as the facilitator.
  const app = new Hono();
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: local.api })).register(
    DEVNET,
    new ExactSvmServerScheme(),
  );
  app.use(
    paymentMiddleware(
      {
        "GET /weather": {
          accepts: { scheme: "exact", price: "$0.01", network: DEVNET, payTo: seller.address },
          description: "Weather",
        },
      },
      resourceServer,
    ),
  );
  app.get("/weather", (c) => c.json(CONTENT));
  sellerFetch = ((input: RequestInfo | URL, init?: RequestInit) => app.fetch(new Request(input, init))) as typeof fetch;
}, 180_000);

async function fundedBuyer() {
  const keypair = randomKeypair();
  await fundFromFaucet(local.chain.url, keypair.address, 1_000_000_000, 1_000_000);
  return { keypair, signer: await createKeyPairSignerFromBytes(keypair.secretKey) };
}

const sellerBalance = async () => (await tokenAccountBalance(local.chain.url, sellerAta)) ?? 0n;

const BUYERS: { library: string; pay: (buyer: Awaited<ReturnType<typeof fundedBuyer>>) => Promise<Response> }[] = [
  {
    library: "@x402/fetch + @x402/svm (official)",
    pay: (buyer) =>
      wrapFetchWithPayment(
        sellerFetch,
        new x402Client().register(DEVNET, new ExactSvmScheme(buyer.signer, { rpcUrl: local.chain.url })),
      )("http://seller.test/weather"),
  },
  {
    library: "x402-solana (client)",
    pay: (buyer) => {
      const keypair = Keypair.fromSecretKey(buyer.keypair.secretKey);
      const client = createX402Client({
        wallet: {
          address: buyer.keypair.address,
          signTransaction: async (tx: VersionedTransaction) => {
            tx.sign([keypair]);
            return tx;
          },
        },
        network: "solana-devnet",
        rpcUrl: local.chain.url,
        customFetch: sellerFetch,
      });
      return client.fetch("http://seller.test/weather");
    },
  },
  {
    library: "@dexterai/x402 (client)",
    pay: (buyer) =>
      dexterWrapFetch(sellerFetch, {
        walletPrivateKey: buyer.keypair.secretKeyBase58,
        rpcUrls: { [DEVNET]: local.chain.url },
        preferredNetwork: DEVNET,
      })("http://seller.test/weather"),
  },
];

describe("the official seller middleware with the seller's own wallet as payTo", () => {
  it("offers the wallet form in /supported", async () => {
    const supported = (await (await fetch(`${local.api}/supported`)).json()) as {
      kinds: { scheme: string; extra: { payToForms: string[] } }[];
    };
    expect(supported.kinds.find((k) => k.scheme === "exact")?.extra.payToForms).toEqual(["vault", "wallet"]);
  });

  for (const buyer of BUYERS) {
    it(`${buyer.library} pays it exactly once, into the seller's own token account`, async () => {
      const paying = await fundedBuyer();
      const before = await sellerBalance();
      const response = await buyer.pay(paying);
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await response.json()).toEqual(CONTENT);
      expect(await sellerBalance()).toBe(before + PRICE_RAW);
    }, 120_000);
  }

  it("a replayed PAYMENT-SIGNATURE is refused and moves nothing", async () => {
    const paying = await fundedBuyer();
    let header: string | null = null;
    const recording = ((input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      header = request.headers.get("PAYMENT-SIGNATURE") ?? header;
      return sellerFetch(request);
    }) as typeof fetch;
    const paid = await wrapFetchWithPayment(
      recording,
      new x402Client().register(DEVNET, new ExactSvmScheme(paying.signer, { rpcUrl: local.chain.url })),
    )("http://seller.test/weather");
    expect(paid.status).toBe(200);
    const after = await sellerBalance();
    const replay = await sellerFetch("http://seller.test/weather", { headers: { "PAYMENT-SIGNATURE": header! } });
    expect(replay.status).toBe(402);
    expect(await sellerBalance()).toBe(after);
  }, 120_000);
});

describe("wrangler.toml's [env.production] without UNIVERSAL_SETTLE_PROGRAM_ID", () => {
  let production: RunningWorker | undefined;
  afterAll(async () => production?.stop(), 60_000);

  it("serves exact in its wallet form out of the box, beside the sla-escrow and upto kinds; only the vault form is " +
    "not offered", async () => {
    const vars = unstable_readConfig({
      config: path.resolve(import.meta.dirname, "../../../../wrangler.toml"),
      env: "production",
    }).vars as Record<string, string>;
    expect(vars.UNIVERSAL_SETTLE_PROGRAM_ID ?? "").toBe("");
    const feePayer = randomKeypair();
    await fundFromFaucet(local.chain.url, feePayer.address, 1_000_000_000);
    production = await startWorker({
      rpcUrl: local.chain.url,
      feePayerSecretKeyBase58: feePayer.secretKeyBase58,
      vars: {
        ...vars,
        // The operator's own ids, here the local chain's (it impersonates devnet); no demo oracle outside local.
        SLA_ESCROW_PROGRAM_ID: SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId,
        USDC_MINT: USDC,
        USDT_MINT: "",
        SVC_ALLOWED_PAYMENT_MINTS: USDC,
        SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
        SOLANA_RPC_URL: local.chain.url,
      },
    });
    const api = `${production.url}/api/v1/facilitator`;
    const supported = (await (await fetch(`${api}/supported`)).json()) as {
      kinds: { scheme: string; extra: Record<string, unknown> }[];
      notOffered: { scheme: string; payToForm?: string; reason: string }[];
    };
    expect(supported.kinds.map((k) => k.scheme)).toEqual(["exact", "sla-escrow", "upto"]);
    expect(supported.kinds[0]!.extra).toMatchObject({
      payToForms: ["wallet"],
      sponsorship: { perBuyerPerDayLamports: "30000000", perPayToPerDayLamports: "50000000" },
    });
    expect(supported.notOffered.map(({ scheme, payToForm, reason }) => ({ scheme, payToForm, reason }))).toEqual([
      { scheme: "exact", payToForm: "vault", reason: "rail_not_enabled" },
    ]);
    const health = await fetch(`${api}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { environment: string }).environment).toBe("production");
  }, 180_000);
});
