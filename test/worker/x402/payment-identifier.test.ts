import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from "@x402/extensions/payment-identifier";
import { describe, expect, it } from "vitest";
import { fundedBuyer, tokenBalance } from "../../support/workerd/chain";
import { paymentParts } from "../../support/workerd/craft-payment";
import { enrichedLine, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { call } from "../../support/workerd/worker-http";

/**
 * Issue 23 item 6: the x402 `payment-identifier` extension, with the official helpers building the payload's
 * extensions exactly as a client does (the server declares it, the client appends its id). Real /settle against
 * the local chain, real D1 ledger.
 */

/** What a client sends: the server's declaration echoed with the client's id appended (the official helpers). */
function withPaymentId(body: Record<string, any>, id?: string, required = false): Record<string, any> {
  const extensions: Record<string, unknown> = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(required) };
  if (id !== undefined) appendPaymentIdentifierToExtensions(extensions, id);
  return { ...body, paymentPayload: { ...body.paymentPayload, extensions } };
}

describe("payment-identifier", () => {
  it("/supported lists the extension", async () => {
    const response = await call("/supported");
    expect(response.body.extensions).toContain(PAYMENT_IDENTIFIER);
  });

  it(
    "records the id with the settlement, shows it on GET /settlements/{signature}, and refuses a different payment " +
      "under it",
    async () => {
      const buyer = await fundedBuyer(50_000_000);
      const line = await enrichedLine(USDC, "1000000");
      const parts = await paymentParts(buyer, line);
      const id = generatePaymentId();

      const first = withPaymentId(await signedPaymentBody(buyer, line), id);
      const settled = await call("/settle", { method: "POST", json: first });
      expect(settled.status, JSON.stringify(settled.body)).toBe(200);
      expect(settled.body.success).toBe(true);
      const status = await call(`/settlements/${settled.body.transaction}`);
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ state: "confirmed", paymentId: id, payer: buyer.address });

      // The same payment again under the same id: the ledger's usual answer for a repeat (no conflict).
      const repeat = await call("/settle", { method: "POST", json: first });
      expect(repeat.body.errorReason ?? "settled").not.toBe("payment_identifier_conflict");

      // A different payment (a new transaction) under the used id: 409, and nothing is sent.
      const balance = await tokenBalance(parts.sourceAta);
      const second = withPaymentId(await signedPaymentBody(buyer, line), id);
      const conflict = await call("/settle", { method: "POST", json: second });
      expect(conflict.status, JSON.stringify(conflict.body)).toBe(409);
      expect(conflict.body).toMatchObject({
        success: false,
        errorReason: "payment_identifier_conflict",
        code: "CONFLICT",
      });
      expect(await tokenBalance(parts.sourceAta)).toBe(balance);

      // The same payment under a fresh id settles normally.
      const fresh = await call("/settle", { method: "POST", json: withPaymentId(second, generatePaymentId()) });
      expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
      expect(await tokenBalance(parts.sourceAta)).toBe(balance - 1_000_000n);
      const freshStatus = await call(`/settlements/${fresh.body.transaction}`);
      expect(freshStatus.body.paymentId).not.toBe(id);
    },
  );

  it("the same id paying another seller is another payment's id (ids are per payTo)", async () => {
    const buyer = await fundedBuyer(50_000_000);
    const id = generatePaymentId();
    for (const line of [await enrichedLine(USDC, "1000000"), await enrichedLine(USDC, "1000000")]) {
      const response = await call("/settle", {
        method: "POST",
        json: withPaymentId(await signedPaymentBody(buyer, line), id),
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    }
  });

  it("a settlement without the extension shows no paymentId", async () => {
    const buyer = await fundedBuyer(50_000_000);
    const settled = await call("/settle", {
      method: "POST",
      json: await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000")),
    });
    expect(settled.status).toBe(200);
    const status = await call(`/settlements/${settled.body.transaction}`);
    expect(status.body).not.toHaveProperty("paymentId");
  });

  it("refuses a malformed id and a missing id the server required, on /verify and /settle", async () => {
    const buyer = await fundedBuyer(50_000_000);
    const body = await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000"));
    const malformed = withPaymentId(body);
    malformed.paymentPayload.extensions[PAYMENT_IDENTIFIER].info.id = "short!";
    for (const route of ["/verify", "/settle"]) {
      const bad = await call(route, { method: "POST", json: malformed });
      expect(bad.status).toBe(400);
      expect(bad.body.invalidReason ?? bad.body.errorReason).toBe("payment_identifier_invalid");
      const missing = await call(route, { method: "POST", json: withPaymentId(body, undefined, true) });
      expect(missing.status).toBe(400);
      expect(missing.body.invalidReason ?? missing.body.errorReason).toBe("payment_identifier_required");
    }
  });
});
