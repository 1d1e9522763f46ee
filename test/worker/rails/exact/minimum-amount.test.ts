import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import { minimumPaymentRaw } from "../../../../src/rails/exact/minimum-amount";
import { getUniversalSettleFacts } from "../../../../src/rails/exact/program-facts";
import { loadConfig } from "../../../../src/rails/registry";
import { DEVNET, NATIVE_SOL, USDC } from "../../../support/workerd/payment-fixtures";
import { call } from "../../../support/workerd/worker-http";

/**
 * The smallest exact payment the facilitator pays a network fee for (src/rails/exact/minimum-amount.ts): an
 * operator floor per mint wins; otherwise the UniversalSettle Config's minimum fee on the local chain; with the
 * chain unreachable, the program's documented minimums. /verify's rejection is
 * test/worker/settlement/money-safety.test.ts.
 */
const baseEnv = env as unknown as Env;

describe("minimum exact payment", () => {
  it("without an operator floor: the on-chain Config's min_fee_amount (SPL) and min_fee_amount_sol (SOL)", async () => {
    const config = await loadConfig(baseEnv);
    const { onChainConfig } = await getUniversalSettleFacts(config);
    expect(onChainConfig).not.toBeNull();
    expect(await minimumPaymentRaw(config, USDC, false)).toBe(onChainConfig!.minFeeAmountRaw);
    expect(await minimumPaymentRaw(config, NATIVE_SOL, true)).toBe(onChainConfig!.minFeeAmountLamports);
  });

  it("an operator floor for a mint replaces the on-chain minimum for that mint only", async () => {
    const config = await loadConfig({ ...baseEnv, SVC_MIN_PAYMENT_RAW_BY_MINT: JSON.stringify({ [USDC]: "250000" }) });
    expect(await minimumPaymentRaw(config, USDC, false)).toBe(250_000n);
    expect(await minimumPaymentRaw(config, NATIVE_SOL, true)).toBe(
      (await getUniversalSettleFacts(config)).onChainConfig!.minFeeAmountLamports,
    );
  });

  it(
    "with the chain unreachable: the program's documented minimums (0.01 of a 6-decimal coin, 100,000 " + "lamports)",
    async () => {
      // Every failed read is handled: a rejection left without a handler fires `unhandledrejection` once microtasks
      // ran.
      const unhandled: unknown[] = [];
      const listener = (event: PromiseRejectionEvent) => unhandled.push(event.reason);
      addEventListener("unhandledrejection", listener);
      try {
        const config = await loadConfig({ ...baseEnv, SOLANA_RPC_URL: "http://127.0.0.1:9" });
        expect(await minimumPaymentRaw(config, USDC, false)).toBe(10_000n);
        expect(await minimumPaymentRaw(config, NATIVE_SOL, true)).toBe(100_000n);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(unhandled).toEqual([]);
      } finally {
        removeEventListener("unhandledrejection", listener);
      }
    },
  );
});

/**
 * The same minimum said up front: every route a seller or buyer meets before /verify refuses with /verify's reason and
 * the number.
 */
describe("minimum exact payment, said before /verify", () => {
  const seller = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
  const below = { reason: "invalid_exact_svm_payload_amount_below_minimum", minimumAmount: "10000" };

  it("enrich refuses an exact line below it, naming the line and the number", async () => {
    const line = { scheme: "exact", network: DEVNET, asset: USDC, payTo: seller, maxTimeoutSeconds: 60 };
    const refused = await call("/payment-required/enrich", {
      method: "POST",
      json: { x402Version: 2, resource: { url: "https://s.example/r" }, accepts: [{ ...line, amount: "1000" }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject(below);
    expect(refused.body.error).toMatch(
      /^accepts\[0\]\.amount: amount 1000 is below this facilitator's minimum of 10000 raw units/,
    );
    const atMinimum = await call("/payment-required/enrich", {
      method: "POST",
      json: { x402Version: 2, resource: { url: "https://s.example/r" }, accepts: [{ ...line, amount: "10000" }] },
    });
    expect(atMinimum.status).toBe(200);
  });

  it("/fee-quote refuses an amount below it", async () => {
    const quote = await call(`/fee-quote?wallet=${seller}&asset=USDC&amount=9999`);
    expect(quote.status).toBe(400);
    expect(quote.body).toMatchObject(below);
  });
});
