import { describe, expect, it } from "vitest";
import { fundedBuyer } from "../../support/workerd/chain";
import { DEVNET, enrichedLine, RESOURCE, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { call } from "../../support/workerd/worker-http";

/**
 * A refusal names the field and says what to send instead (the Worker in workerd, the local chain): which term of
 * paymentRequirements differs from the accepted line, an amount given as a price, a symbol where a mint belongs, a
 * whole 402 body where one of its lines belongs; and a malformed field is named in the error body's `field`.
 */
describe("refusals that say what to send instead", () => {
  it("a requirements/accepted mismatch names the differing term and both values", async () => {
    const body = await signedPaymentBody(await fundedBuyer(), await enrichedLine(USDC, "250000"));
    const tampered = (change: (requirements: Record<string, any>) => void) => {
      const copy = structuredClone(body);
      copy.paymentRequirements = structuredClone(copy.paymentPayload.accepted);
      change(copy.paymentRequirements);
      return copy;
    };
    const amount = await call("/verify", { method: "POST", json: tampered((r) => (r.amount = "100000")) });
    expect(amount.body.invalidReason).toBe("invalid_payload_requirements_mismatch");
    expect(amount.body.error).toContain(
      'paymentRequirements.amount is "100000" but paymentPayload.accepted.amount is "250000"',
    );
    const feePayer = await call("/settle", {
      method: "POST",
      json: tampered((r) => (r.extra.feePayer = "11111111111111111111111111111112")),
    });
    expect(feePayer.body.errorReason).toBe("invalid_payload_requirements_mismatch");
    expect(feePayer.body.error).toMatch(
      new RegExp(
        String.raw`paymentRequirements\.extra\.feePayer is "11111111111111111111111111111112" ` +
          String.raw`but paymentPayload\.accepted\.extra\.feePayer is "\w+"`,
      ),
    );
  });

  it("an amount given as a price: raw units, with the number to send", async () => {
    const line = await enrichedLine(USDC, "250000");
    const built = await call("/build-exact-payment-tx", {
      method: "POST",
      json: { payer: (await fundedBuyer()).address, accepted: { ...line, amount: "0.25" }, resource: RESOURCE },
    });
    expect(built.status).toBe(400);
    expect(built.body).toMatchObject({ reason: "invalid_request", field: "accepted.amount" });
    expect(built.body.error).toBe(
      'accepted.amount: must be the amount in the asset\'s raw units, as a string of digits, not the price "0.25": ' +
        'in a 6-decimal asset such as USDC that is "250000"',
    );
  });

  it(
    "a symbol where a mint belongs: enrich takes it as the seller routes do, /verify says to send the " + "mint",
    async () => {
      const seller = (await fundedBuyer(0)).address;
      const enriched = await call("/payment-required/enrich", {
        method: "POST",
        json: {
          x402Version: 2,
          resource: RESOURCE,
          accepts: [
            { scheme: "exact", network: DEVNET, asset: "USDC", amount: "250000", payTo: seller, maxTimeoutSeconds: 60 },
          ],
        },
      });
      expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
      expect(enriched.body.accepts[0].asset).toBe(USDC);

      const body = await signedPaymentBody(await fundedBuyer(), await enrichedLine(USDC, "250000"));
      body.paymentPayload.accepted.asset = "USDC";
      body.paymentRequirements = body.paymentPayload.accepted;
      const verified = await call("/verify", { method: "POST", json: body });
      expect(verified.body.invalidReason).toBe("invalid_payload");
      expect(verified.body.error).toMatch(
        new RegExp(
          String.raw`^paymentPayload\.accepted\.asset: must be the mint's base58 address \(32 bytes\), ` +
            String.raw`not a symbol such as "USDC": .*\/agent-payTo-semantics\.json`,
        ),
      );
    },
  );

  it("a whole 402 body where one of its lines belongs", async () => {
    const line = await enrichedLine(USDC, "250000");
    const whole = { x402Version: 2, resource: RESOURCE, accepts: [line] };
    const built = await call("/build-exact-payment-tx", {
      method: "POST",
      json: { payer: (await fundedBuyer()).address, accepted: whole, resource: RESOURCE },
    });
    expect(built.status).toBe(400);
    expect(built.body).toMatchObject({ reason: "invalid_request", field: "accepted" });
    expect(built.body.error).toBe(
      "accepted: is a whole 402 body (it has accepts[]); send one line of its accepts[] as accepted: the one whose " +
        "scheme and network you pay, unchanged",
    );
  });
});
