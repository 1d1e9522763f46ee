import { describe, expect, it } from "vitest";
import { fundedBuyer } from "../../support/workerd/chain";
import { enrichedLine, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { call } from "../../support/workerd/worker-http";

/**
 * One header for either kind of seller: the spec's reference seller posts the buyer's PAYMENT-SIGNATURE as it came (a
 * bare v2 PaymentPayload), the official middleware wraps it. Both are verified and settled alike, on the real chain.
 */
describe("/verify and /settle take a bare v2 PaymentPayload", () => {
  it("verifies and settles the bare paymentPayload exactly as the wrapped body", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const wrapped = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
    const bare = wrapped.paymentPayload;
    expect(bare.accepted).toEqual(wrapped.paymentRequirements);

    const verified = await call("/verify", { method: "POST", json: bare });
    expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ isValid: true, payer: buyer.address });
    const settled = await call("/settle", { method: "POST", json: bare });
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true, payer: buyer.address });
    // The same payment wrapped is the same payment: reported as paid once, naming the same transaction.
    const again = await call("/settle", { method: "POST", json: wrapped });
    expect(again.body, JSON.stringify(again.body)).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
      transaction: settled.body.transaction,
    });
  });

  it("judges a bare payload's own fields: a broken one is invalid_payload naming the field", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const wrapped = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
    const bare = { ...wrapped.paymentPayload, payload: { transaction: "" } };
    const verified = await call("/verify", { method: "POST", json: bare });
    expect(verified.status).toBe(400);
    expect(verified.body).toMatchObject({
      isValid: false,
      invalidReason: "invalid_payload",
      reason: "invalid_payload",
    });
    expect(verified.body.error).toContain("paymentPayload.payload");
  });
});
