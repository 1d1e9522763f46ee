/**
 * `npm run demo -- --upto`: usage-based payments (`upto`) end to end against a running `npm start`, with the official
 * packages on both sides of this facilitator:
 *
 * 1. a seller runs the official Hono middleware with the official `@x402/svm/upto/server` scheme (it holds its own
 *    voucher key) on a loopback port; its handler reports what it used with setSettlementOverrides;
 * 2. a buyer with the official client (`@x402/fetch` + `@x402/svm/upto/client`) calls it: the middleware settles the
 *    deposit of the ceiling through this facilitator before the handler runs, then the claim of what was used after
 *    it; the seller is paid exactly that and the rest of the deposit returns to the buyer;
 * 3. a second buyer without any Solana SDK builds its deposit with POST /build-upto-deposit-tx, signs it and calls a
 *    route whose handler fails: the middleware cancels and the whole deposit returns.
 * Balances are read from the chain; the demo fails unless each is what it should be, to the unit.
 */

import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { Network, PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { paymentMiddleware, setSettlementOverrides, x402ResourceServer } from "@x402/hono";
import { UptoSvmScheme as UptoSvmClientScheme } from "@x402/svm/upto/client";
import { UptoSvmScheme as UptoSvmServerScheme } from "@x402/svm/upto/server";
import { Hono } from "hono";
import { signAtIndex } from "./build-endpoint-buyer";
import { fundFromFaucet, tokenAccountBalance } from "./chain-rpc";
import type { JsonAnswer } from "./sweep-step";

const CEILING_RAW = 800_000n; // "$0.80": what the buyer deposits, the most the seller may charge
const USED_RAW = 512_345n; // what the handler reports it used
const BUYER_USDC_RAW = 1_000_000n;

export interface UptoDemoContext {
  facilitatorApi: string;
  rpcUrl: string;
  network: string;
  usdcMint: string;
  log: (line: string) => void;
}

export async function runUptoDemo(ctx: UptoDemoContext): Promise<void> {
  const { facilitatorApi, rpcUrl, log } = ctx;
  const network = ctx.network as Network;
  const supported = (await (await fetch(`${facilitatorApi}/supported`)).json()) as {
    kinds: { scheme: string; network: string; extra: Record<string, unknown> }[];
  };
  const kind = supported.kinds.find((k) => k.scheme === "upto" && k.network === network);
  if (!kind)
    throw new Error(
      "the facilitator does not serve the upto rail here (/supported has no upto kind: is the payment-channels program deployed?)",
    );
  log(`upto kind     ${JSON.stringify(kind.extra)}`);

  const seller = await generateKeyPairSigner();
  // Its USDC account must exist (a share to a missing one goes to the treasury): the faucet creates it with 1 raw unit.
  await fundFromFaucet(rpcUrl, seller.address, 0, 1);
  const SELLER_MADE_OF = `1 (the faucet's, to create the seller's USDC account) + ${USED_RAW} charged`;
  const voucherKey = await generateKeyPairSigner();
  const usdc = async (owner: string) => {
    const [ata] = await findAssociatedTokenPda({
      owner: owner as never,
      mint: ctx.usdcMint as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    return (await tokenAccountBalance(rpcUrl, ata)) ?? 0n;
  };
  /** `made of`: what the balance is, in words, where it is not just what was paid (e.g. the seller's starting unit). */
  const expect = async (label: string, owner: string, wanted: bigint, madeOf?: string) => {
    const actual = await usdc(owner);
    const why = actual === wanted ? (madeOf ? ` = ${madeOf}` : "") : `  (expected ${wanted})`;
    log(`  ${label.padEnd(12)} ${actual} raw USDC${why}`);
    if (actual !== wanted) throw new Error(`${label}: ${actual} raw USDC, expected ${wanted}`);
  };

  // 1. The official seller setup (x402 examples/typescript/servers/upto), Solana flavour.
  const app = new Hono();
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorApi })).register(
    network,
    new UptoSvmServerScheme({ receiverAuthorizerSigner: voucherKey, rpcUrl }),
  );
  const accepts = { scheme: "upto", price: "$0.80", network, payTo: seller.address };
  app.use(
    paymentMiddleware(
      {
        "GET /generate": { accepts, description: "Text generation, billed by tokens" },
        "GET /broken": { accepts, description: "A model that is down" },
      },
      resourceServer,
    ),
  );
  app.get("/generate", (c) => {
    setSettlementOverrides(c, { amount: USED_RAW.toString() });
    return c.json({
      text: "Once upon a time…",
      usage: { authorizedMaxRaw: CEILING_RAW.toString(), chargedRaw: USED_RAW.toString() },
    });
  });
  app.get("/broken", (c) => c.json({ error: "model unavailable" }, 500));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const running = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(running));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  log(
    `seller        ${origin}  (wallet ${seller.address}, voucher key ${voucherKey.address}; ceiling ${CEILING_RAW} raw USDC)`,
  );

  try {
    // 2. The official buyer; the handler used less than the ceiling.
    const buyer = await fundedBuyer(rpcUrl);
    log(`buyer         ${buyer.address}  (official @x402/svm/upto client; ${BUYER_USDC_RAW} raw USDC, no SOL)`);
    const client = new x402Client().register(network, new UptoSvmClientScheme(buyer as never, { rpcUrl }));
    const paid = await wrapFetchWithPayment(fetch, client)(`${origin}/generate`);
    if (paid.status !== 200)
      throw new Error(`GET /generate answered ${paid.status}: ${(await paid.text()).slice(0, 300)}`);
    log(`GET /generate 200 ${await paid.text()}`);
    log(`  PAYMENT-RESPONSE ${describeSettle(paid.headers.get("PAYMENT-RESPONSE"))}`);
    await expect("seller", seller.address, 1n + USED_RAW, SELLER_MADE_OF);
    await expect("buyer", buyer.address, BUYER_USDC_RAW - USED_RAW, `${BUYER_USDC_RAW} - ${USED_RAW} charged`);

    // 3. A buyer without a Solana SDK, and a handler that fails: cancelled, the whole deposit returns.
    const plain = await fundedBuyer(rpcUrl);
    log(`buyer         ${plain.address}  (no x402 library: builds with /build-upto-deposit-tx and signs the bytes)`);
    const challenge = await fetch(`${origin}/broken`);
    const paymentRequired = JSON.parse(
      Buffer.from(challenge.headers.get("PAYMENT-REQUIRED") ?? "", "base64").toString("utf8"),
    );
    const accepted = (paymentRequired.accepts as PaymentRequirements[]).find((line) => line.scheme === "upto");
    const built = await fetch(`${facilitatorApi}/build-upto-deposit-tx`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ payer: plain.address, accepted, resource: paymentRequired.resource }),
    });
    const body = (await built.json()) as JsonAnswer;
    if (built.status !== 200)
      throw new Error(`/build-upto-deposit-tx answered ${built.status}: ${JSON.stringify(body)}`);
    log(`  built       channel ${body.channelId}, deposit ${body.deposit}, sign at index ${body.payerSignatureIndex}`);
    const paymentPayload = body.verifyBodyTemplate.paymentPayload;
    paymentPayload.payload.openTransaction = await signAtIndex(body.transaction, body.payerSignatureIndex, plain);
    const failed = await fetch(`${origin}/broken`, {
      headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(paymentPayload)).toString("base64") },
    });
    log(`GET /broken   ${failed.status} ${await failed.text()}  (the handler failed: the middleware cancels)`);
    await expect("buyer", plain.address, BUYER_USDC_RAW);
    await expect("seller", seller.address, 1n + USED_RAW, `${SELLER_MADE_OF}, nothing more`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function fundedBuyer(rpcUrl: string): Promise<KeyPairSigner> {
  const buyer = await generateKeyPairSigner();
  await fundFromFaucet(rpcUrl, buyer.address, 0, BUYER_USDC_RAW);
  return buyer;
}

function describeSettle(header: string | null): string {
  if (!header) return "(none)";
  const settle = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as {
    success?: boolean;
    transaction?: string;
    amount?: string;
  };
  return `success=${settle.success} transaction=${settle.transaction}${settle.amount ? ` amount=${settle.amount}` : ""}`;
}
