import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app";
import { chainRpc, fundedBuyer } from "../../support/workerd/chain";
import { countingBindings } from "../../support/workerd/counting-bindings";
import { FEE_PAYER } from "../../support/workerd/craft-payment";
import { escrowLine, signedEscrowBody } from "../../support/workerd/escrow-fixtures";
import { faultScenario } from "../../support/workerd/fault-scenario";
import {
  createUsdcAccount,
  DEVNET,
  enrichedLine,
  signedPaymentBody,
  USDC,
} from "../../support/workerd/payment-fixtures";
import { uptoBody, uptoDeposit, uptoLine } from "../../support/workerd/upto-fixtures";
import { API } from "../../support/workerd/worker-http";

/**
 * What one `/verify` costs outside the isolate, per rail: its JSON-RPC calls (counted by the RPC fault proxy in front
 * of the real local chain, which forwards everything) and its calls on the Worker's bindings (D1 statements, KV, the
 * settle ledger's objects, rate limiters, Analytics Engine; test/support/workerd/counting-bindings.ts). These are the
 * round trips and reads of the hot path: each one added is latency and, on Cloudflare, a billed operation on every
 * verify, so the counts are exact and a change that adds one must change this test and say why.
 *
 * Counted on a warm isolate: the second verify of the same seller's line, a payment of its own (a seller's buyers send
 * many). The first verify of an app reads the configuration's D1 parameters and the facts each rail keeps per isolate
 * (mints, program facts, a vault that exists); those are the warm-up, not the path.
 */

/** The Worker's app with counted bindings and its own RPC scenario; one env object, so the configuration is cached. */
function countedFacilitator() {
  const app = buildApp();
  const counting = countingBindings();
  const rpc = faultScenario();
  const testEnv = { ...(env as unknown as Record<string, unknown>), SOLANA_RPC_URL: rpc.rpcUrl, ...counting.bindings };
  let client = 0;
  const verify = async (body: unknown) => {
    const response = await app.request(
      `${API}/verify`,
      {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": `10.44.0.${client++}` },
      },
      testEnv,
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** One verify's calls: RPC methods, then bindings. */
  const callsOf = async (body: unknown) => {
    const rpcBefore = await rpc.calls();
    counting.reset();
    const answer = await verify(body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.isValid).toBe(true);
    const rpcAfter = await rpc.calls();
    const rpcCalls: Record<string, number> = {};
    for (const [method, count] of Object.entries(rpcAfter)) {
      const made = count - (rpcBefore[method] ?? 0);
      if (made > 0) rpcCalls[method] = made;
    }
    return { rpc: rpcCalls, bindings: counting.counts() };
  };
  /** The warm verify's calls: a first payment of `paymentBody()` warms the app up, a second one is counted. */
  const warmCalls = async (paymentBody: () => Promise<unknown>) => {
    const [first, second] = [await paymentBody(), await paymentBody()];
    await callsOf(first);
    return callsOf(second);
  };
  return { warmCalls };
}

/** What every verify pays, whatever the rail: both payment rate limits (per client, per payer) and one data point. */
const EVERY_VERIFY = {
  "RATE_LIMIT_PAYMENT_CLIENT.limit": 1,
  "RATE_LIMIT_PAYMENT_PAYER.limit": 1,
  "TELEMETRY.writeDataPoint": 1,
};

describe("one warm /verify: RPC calls and store reads per rail", () => {
  it(
    "exact, vault form: the simulation, nothing else (the mint and the vault are known from the first " + "verify)",
    async () => {
      const facilitator = countedFacilitator();
      const line = await enrichedLine(USDC, "250000");
      const buyer = await fundedBuyer(5_000_000);
      const calls = await facilitator.warmCalls(() => signedPaymentBody(buyer, line));
      expect(calls).toEqual({ rpc: { simulateTransaction: 1 }, bindings: EVERY_VERIFY });
    },
  );

  it("exact, wallet form: the simulation, nothing else", async () => {
    const facilitator = countedFacilitator();
    const seller = await generateKeyPairSigner();
    await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
    await createUsdcAccount(seller.address, seller);
    const line = {
      scheme: "exact",
      network: DEVNET,
      asset: USDC,
      amount: "250000",
      payTo: seller.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: FEE_PAYER },
    };
    const buyer = await fundedBuyer(5_000_000);
    const calls = await facilitator.warmCalls(() => signedPaymentBody(buyer, line));
    expect(calls).toEqual({ rpc: { simulateTransaction: 1 }, bindings: EVERY_VERIFY });
  });

  it("sla-escrow (buyer-paid): the mint read beside the simulation; one signer, so no per-payer limit", async () => {
    const facilitator = countedFacilitator();
    const line = await escrowLine(USDC, "1500000", (await generateKeyPairSigner()).address);
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const calls = await facilitator.warmCalls(async () => (await signedEscrowBody(buyer, line)).body);
    // The buyer pays its own network fee and is the transaction's only signer: src/x402/payer-key.ts keys no payer.
    const { "RATE_LIMIT_PAYMENT_PAYER.limit": _perPayer, ...everyBuyerPaidVerify } = EVERY_VERIFY;
    expect(calls).toEqual({
      rpc: { getMultipleAccounts: 1, simulateTransaction: 1 },
      bindings: everyBuyerPaidVerify,
    });
  });

  it(
    "upto deposit: mint, channel, treasury and payTo token accounts in one read, the slot, the simulation, and the " +
      "exposure budget's D1 read",
    async () => {
      const facilitator = countedFacilitator();
      const authorizer = await generateKeyPairSigner();
      const line = await uptoLine({ feePayer: FEE_PAYER, authorizer: authorizer.address });
      const buyer = await fundedBuyer(10_000_000);
      const calls = await facilitator.warmCalls(async () => uptoBody(line, await uptoDeposit(buyer, line)));
      // The fee payer's balance, which the budget's share reads, is cached per isolate (src/chain/fee-payer-budget/).
      expect(calls).toEqual({
        rpc: { getMultipleAccounts: 1, getSlot: 1, simulateTransaction: 1 },
        bindings: { ...EVERY_VERIFY, "DB.first": 1 },
      });
    },
  );
});
