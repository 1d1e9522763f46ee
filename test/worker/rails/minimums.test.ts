import { env } from "cloudflare:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import type { Config } from "../../../src/platform/config/load-config";
import { loadConfig } from "../../../src/rails/registry";
import { getSlaEscrowFacts } from "../../../src/rails/sla-escrow/escrow-facts";
import { checkEscrowTerms } from "../../../src/rails/sla-escrow/escrow-terms";
import { uptoMinimumCeilingRaw } from "../../../src/rails/upto/mint-screen";
import type { PaymentRequirements } from "../../../src/x402/schemas";
import { TEST_FEE_PAYER } from "../../support/keys";
import { fundedBuyer } from "../../support/workerd/chain";
import { build, escrowLine, post, TTL } from "../../support/workerd/escrow-fixtures";
import { DEVNET, RESOURCE, USDC } from "../../support/workerd/payment-fixtures";
import { uptoLine } from "../../support/workerd/upto-fixtures";
import { call } from "../../support/workerd/worker-http";

/**
 * The sla-escrow and upto rails have minimums of their own in /verify (the escrow's amount range and minimum fee;
 * the upto ceiling floor, src/rails/upto/mint-screen.ts). Like the exact minimum (exact/minimum-amount.test.ts), each
 * is said before /verify: enrich, the builders and /fee-quote refuse with /verify's reason and the number. The escrow's
 * limits are the Escrow account's on the local chain; the expected reason is the one /verify's own rule gives
 * (checkEscrowTerms, which src/rails/sla-escrow/verify.ts calls).
 */
let config: Config;
let limits: { minPaymentAmount: bigint; maxPaymentAmount: bigint; minFeeAmount: bigint };
let minimum: bigint;
let seller: Address;

beforeAll(async () => {
  config = await loadConfig(env as unknown as Env);
  limits = (await getSlaEscrowFacts(config, USDC)).escrowAccount!;
  minimum = limits.minPaymentAmount > limits.minFeeAmount ? limits.minPaymentAmount : limits.minFeeAmount;
  seller = (await generateKeyPairSigner()).address;
});

const enrich = (accepts: unknown[]) =>
  post("/payment-required/enrich", { x402Version: 2, resource: RESOURCE, accepts });

describe("sla-escrow: the escrow's amount limits, said before /verify", () => {
  it("the local escrow has a minimum worth testing (above one raw unit)", () => {
    expect(minimum).toBeGreaterThan(1n);
  });

  it(
    "enrich refuses a line below the minimum with /verify's reason and the escrow's numbers; at the minimum it " +
      "enriches",
    async () => {
      const below = minimum - 1n;
      const line = { scheme: "sla-escrow", network: DEVNET, asset: USDC, payTo: seller, maxTimeoutSeconds: TTL };
      const refused = await enrich([{ ...line, amount: below.toString() }]);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      const enriched = await escrowLine(USDC, minimum.toString(), seller);
      const verifyRule = await checkEscrowTerms(
        config,
        { ...enriched, amount: below.toString() } as unknown as PaymentRequirements,
        below,
      );
      expect(verifyRule.ok).toBe(false);
      expect(refused.body).toMatchObject({
        code: "BAD_REQUEST",
        reason: (verifyRule as { reason: string }).reason,
        minimumAmount: minimum.toString(),
        maximumAmount: limits.maxPaymentAmount.toString(),
      });
      expect(refused.body.error).toMatch(new RegExp(`^accepts\\[0\\]\\.amount: amount ${below} `));
      expect(refused.body.error).toContain(
        minimum === limits.minFeeAmount ? `minimum fee of ${minimum}` : `[${limits.minPaymentAmount}, `,
      );
    },
  );

  it("above the escrow's maximum: out of range, on enrich as on /verify", async () => {
    const above = limits.maxPaymentAmount + 1n;
    const refused = await enrich([
      {
        scheme: "sla-escrow",
        network: DEVNET,
        asset: USDC,
        payTo: seller,
        maxTimeoutSeconds: TTL,
        amount: above.toString(),
      },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      reason: "invalid_sla_escrow_amount_out_of_range",
      maximumAmount: limits.maxPaymentAmount.toString(),
    });
  });

  it(
    "the funding builder refuses an enriched line lowered below the minimum the same way (reason and " + "numbers)",
    async () => {
      const buyer = await fundedBuyer();
      const line = { ...(await escrowLine(USDC, minimum.toString(), seller)), amount: (minimum - 1n).toString() };
      const built = await build(buyer.address, line);
      expect(built.status, JSON.stringify(built.body)).toBe(400);
      const fromEnrich = await enrich([
        {
          scheme: "sla-escrow",
          network: DEVNET,
          asset: USDC,
          payTo: seller,
          maxTimeoutSeconds: TTL,
          amount: (minimum - 1n).toString(),
        },
      ]);
      expect(built.body).toMatchObject({
        reason: fromEnrich.body.reason,
        minimumAmount: minimum.toString(),
        maximumAmount: limits.maxPaymentAmount.toString(),
      });
    },
  );

  it("/fee-quote refuses an sla-escrow amount below the minimum the same way", async () => {
    const quote = await call(`/fee-quote?wallet=${seller}&asset=USDC&scheme=sla-escrow&amount=${minimum - 1n}`);
    expect(quote.status, JSON.stringify(quote.body)).toBe(400);
    const fromEnrich = await enrich([
      {
        scheme: "sla-escrow",
        network: DEVNET,
        asset: USDC,
        payTo: seller,
        maxTimeoutSeconds: TTL,
        amount: (minimum - 1n).toString(),
      },
    ]);
    expect(quote.body).toMatchObject({ reason: fromEnrich.body.reason, minimumAmount: minimum.toString() });
    expect((await call(`/fee-quote?wallet=${seller}&asset=USDC&scheme=sla-escrow&amount=${minimum}`)).status).toBe(200);
  });
});

describe("upto: the ceiling's minimum, said before /verify", () => {
  it(
    "enrich refuses an upto line whose ceiling is below the minimum, with the builder's reason and number; at the " +
      "minimum the line comes back as sent",
    async () => {
      const floor = uptoMinimumCeilingRaw(config, { address: USDC, decimals: 6 });
      const authorizer = (await generateKeyPairSigner()).address;
      const line = await uptoLine({
        feePayer: TEST_FEE_PAYER.address as Address,
        authorizer,
        amount: (floor - 1n).toString(),
      });

      const refused = await enrich([line]);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toMatchObject({
        code: "BAD_REQUEST",
        reason: "invalid_upto_svm_payload_amount_below_minimum",
        minimumAmount: floor.toString(),
      });
      expect(refused.body.error).toBe(
        `accepts[0].amount: the ` +
          `ceiling ${floor - 1n} is below this facilitator's minimum ` +
          `of ${floor} raw units for ${USDC} (an open fronts a channel's rent)`,
      );

      const buyer = await fundedBuyer();
      const built = await post("/build-upto-deposit-tx", { payer: buyer.address, accepted: line });
      expect(built.status, JSON.stringify(built.body)).toBe(400);
      expect(built.body).toMatchObject({ reason: refused.body.reason, minimumAmount: refused.body.minimumAmount });
      expect(built.body.error).toBe(refused.body.error.replace("accepts[0].amount", "accepted.amount"));

      const atFloor = { ...line, amount: floor.toString() };
      const passed = await enrich([atFloor]);
      expect(passed.status, JSON.stringify(passed.body)).toBe(200);
      expect(passed.body.accepts).toEqual([atFloor]);
    },
  );
});
