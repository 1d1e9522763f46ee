import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { fundedBuyer } from "../../support/workerd/chain";
import { DEVNET, enrichedLine, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { call } from "../../support/workerd/worker-http";

/** Issue 8 item 6: what the official seller middleware sends must verify unchanged. */
const post = (path: string, json: unknown) =>
  call(path, { method: "POST", json, headers: { "CF-Connecting-IP": crypto.randomUUID() } });

describe("compatibility with the official seller middleware", () => {
  it("extra.merchantWallet may be absent: the seller is read from the vault account", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const body = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
    for (const side of [body.paymentRequirements, body.paymentPayload.accepted]) delete side.extra.merchantWallet;
    const verified = await post("/verify", body);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.isValid).toBe(true);
  });

  it("...but a vault that does not exist yet needs it, and the rejection says so", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const body = await signedPaymentBody(
      buyer,
      await enrichedLine(USDC, "1000000", (await generateKeyPairSigner()).address),
    );
    for (const side of [body.paymentRequirements, body.paymentPayload.accepted]) delete side.extra.merchantWallet;
    const refused = await post("/verify", body);
    expect(refused.status).toBe(400);
    expect(refused.body.invalidReason).toBe("invalid_exact_svm_payload_missing_merchant_wallet");
    expect(refused.body.invalidMessage).toContain("not an existing UniversalSettle vault");
  });

  it("per-request blockhash fields in extra may differ between paymentRequirements and accepted", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const body = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
    body.paymentPayload.accepted.extra = {
      ...body.paymentPayload.accepted.extra,
      recentBlockhash: "11111111111111111111111111111111",
      lastValidBlockHeight: 1,
    };
    body.paymentRequirements.extra = {
      ...body.paymentRequirements.extra,
      recentBlockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi",
      lastValidBlockHeight: 99,
    };
    expect((await post("/verify", body)).status).toBe(200);
    body.paymentRequirements.extra = { ...body.paymentRequirements.extra, feeBps: "1" }; // a real term still counts
    expect((await post("/verify", body)).body.invalidReason).toBe("invalid_payload_requirements_mismatch");
  });

  it("/seller-quick-start.md shows that configuration, filled in for this deployment", async () => {
    const guide = await call("http://facilitator.test/seller-quick-start.md");
    expect(guide.status).toBe(200);
    expect(guide.headers.get("Content-Type")).toContain("text/markdown");
    // The guide's seller names the facilitator and the network once, then hands them to the official middleware.
    expect(guide.text).toContain('const FACILITATOR = "http://facilitator.test/api/v1/facilitator";');
    expect(guide.text).toContain(`const NETWORK = "${DEVNET}";`);
    expect(guide.text).toContain(
      "new HTTPFacilitatorClient({ url: FACILITATOR })).register(NETWORK, new ExactSvmScheme())",
    );
    expect(guide.text).not.toContain("{{");
  });
});
