/**
 * Onboarding a seller where no UniversalSettle program is configured (src/platform/config/rail-switches.ts): with the
 * wallet `payTo` form on, the seller preview shows that form, the seller's USDC token account and the line to publish,
 * and that line is paid end to end; the vault provisioning route refuses with why and what to use instead. Also the
 * minimum payment's fallback without the program (src/rails/exact/minimum-amount.ts): the documented 0.01 USDC.
 * Real: workerd, local D1, the local chain (devnet program ids and stand-ins; the Worker runs as mainnet production).
 */

import { generateKeyPairSigner } from "@solana/kit";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { RailInfoSchema, SellerPreviewResponseSchema } from "../../../../src/http/routes/sellers-responses";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { chainRpc, fundedBuyer, tokenBalance } from "../../../support/workerd/chain";
import { craftBody, paymentParts, standardInstructions } from "../../../support/workerd/craft-payment";
import { createUsdcAccount, signAsBuyer, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { WALLET_FORM_ONLY } from "../../../support/workerd/production-vars";
import { callWithEnv } from "../../../support/workerd/worker-http";

/** `[env.production]` without a UniversalSettle id, wallet form opted in. */
const WALLET_ONLY = WALLET_FORM_ONLY;
const NEITHER_FORM = { ...WALLET_ONLY, SVC_EXACT_WALLET_PAYTO: "false" };
const USDC = CLUSTERS.devnet.usdcMint;
const MAINNET = CLUSTERS.mainnet.network;
/** The program's documented minimum fee (docs/facilitator-spec.md §8): 0.01 of a 6-decimal token. */
const DOCUMENTED_MINIMUM = "10000";

const get = (overrides: Record<string, unknown>, path: string) => callWithEnv(overrides, path);
const post = (overrides: Record<string, unknown>, path: string, json: unknown) =>
  callWithEnv(overrides, path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() },
    body: JSON.stringify(json),
  });

async function newSeller() {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  return seller;
}

describe("the seller preview without a UniversalSettle program", () => {
  it(
    "shows the wallet payTo form: the seller's USDC token account to create, then the line to publish, which pays " +
      "into the wallet",
    async () => {
      const seller = await newSeller();
      const ata = await usdcAccountOf(seller.address);

      const before = await get(WALLET_ONLY, `/sellers/${seller.address}/preview`);
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(v.safeParse(SellerPreviewResponseSchema, before.body).issues).toBeUndefined();
      expect(before.body.facilitatorInfo.universalSettleProgramId).toBeNull();
      expect(before.body.notOffered).toEqual([
        {
          scheme: "exact",
          payToForm: "vault",
          reason: "rail_not_enabled",
          why: expect.stringMatching(/UNIVERSAL_SETTLE_PROGRAM_ID is not set/),
        },
      ]);
      const line = {
        scheme: "exact",
        network: MAINNET,
        payTo: seller.address,
        asset: USDC,
        amount: DOCUMENTED_MINIMUM,
        maxTimeoutSeconds: 60,
        extra: { feePayer: TEST_FEE_PAYER.address, maxComputeUnitLimit: "200000", recommendedComputeUnitPrice: "1" },
      };
      expect(before.body.schemes.exact).toMatchObject({
        scheme: "exact",
        payTo: seller.address,
        payToKind: "wallet",
        payToForms: ["wallet"],
        feeBps: "0",
        status: "NotProvisioned",
        tokenAccount: { asset: "USDC", mint: USDC, address: ata, exists: false },
        minimumAmount: DOCUMENTED_MINIMUM,
        line,
      });
      expect(before.body.schemes.exact.vaultPda).toBeUndefined();
      // The escrow rail is there as on any deployment.
      expect(before.body.schemes["sla-escrow"]).toMatchObject({ scheme: "sla-escrow", payToKind: "escrowPda" });
      expect(before.body.lifecycle).toEqual({
        previewed: true,
        activated: false,
        verified: false,
        nextStep: "create_token_account",
        blockedReason: "seller_token_account_missing",
        sellerTokenAccount: ata,
      });

      // The one-rail lookup has no rail address to give (as for upto): it says payTo is the wallet itself.
      const rail = await get(WALLET_ONLY, `/sellers/${seller.address}/rails/exact`);
      expect(rail.status).toBe(503);
      expect(rail.body).toMatchObject({ code: "RAIL_NOT_ENABLED", reason: "rail_not_enabled", payToForms: ["wallet"] });
      expect(rail.body.error).toContain(`payTo is ${seller.address} itself`);

      await createUsdcAccount(seller.address, seller);
      const after = await get(WALLET_ONLY, `/sellers/${seller.address}/preview`);
      expect(after.body.schemes.exact).toMatchObject({
        status: "Active",
        tokenAccount: { address: ata, exists: true },
      });
      // Paid from here on; registering (test/worker/rails/exact/wallet-pay-to-register.test.ts) is the optional next
      // step, as for a vault.
      expect(after.body.lifecycle).toEqual({ previewed: true, activated: true, verified: false, nextStep: "verify" });

      // The published line, as the preview wrote it, is paid through this facilitator into the seller's own account.
      const buyer = await fundedBuyer(1_000_000);
      const published = after.body.schemes.exact.line;
      const built = await post(WALLET_ONLY, "/build-exact-payment-tx", { payer: buyer.address, accepted: published });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const body = built.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
      expect((await post(WALLET_ONLY, "/verify", body)).body).toMatchObject({ isValid: true, payer: buyer.address });
      const settled = await post(WALLET_ONLY, "/settle", body);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({
        success: true,
        payer: buyer.address,
        network: MAINNET,
      });
      expect(await tokenBalance(ata)).toBe(BigInt(DOCUMENTED_MINIMUM));
    },
  );

  it(
    "with both exact forms off, the preview still serves: no exact rail, both forms in notOffered, the escrow rail " +
      "as usual",
    async () => {
      const seller = await newSeller();
      const preview = await get(NEITHER_FORM, `/sellers/${seller.address}/preview`);
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      expect(v.safeParse(SellerPreviewResponseSchema, preview.body).issues).toBeUndefined();
      expect(preview.body.schemes.exact).toBeUndefined();
      expect(preview.body.notOffered.map((n: { payToForm: string }) => n.payToForm)).toEqual(["vault", "wallet"]);
      expect(preview.body.lifecycle).toEqual({ previewed: true, activated: false, verified: false });
      expect(preview.body.schemes["sla-escrow"]).toMatchObject({ scheme: "sla-escrow" });
    },
  );

  it(
    "where both forms run (the local default), the vault block keeps pr402's shape and adds the forms and the " +
      "wallet form's line",
    async () => {
      const seller = await newSeller();
      const preview = await get({}, `/sellers/${seller.address}/preview`);
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      expect(v.safeParse(RailInfoSchema, preview.body.schemes.exact).issues).toBeUndefined();
      expect(preview.body.schemes.exact).toMatchObject({
        payToKind: "splitVault",
        payToForms: ["vault", "wallet"],
        walletPayTo: { payTo: seller.address, payToKind: "wallet", line: { payTo: seller.address } },
      });
      expect(preview.body.schemes.exact.walletPayTo.line.extra.merchantWallet).toBeUndefined();
      expect(preview.body.notOffered).toEqual([]);
      expect(preview.body.lifecycle.nextStep).toBe("activate");
    },
  );
});

describe("vault provisioning without a UniversalSettle program", () => {
  it(
    "answers 503 rail_not_enabled saying why, and that the seller's own wallet is payTo instead (or the other " +
      "rails)",
    async () => {
      const seller = await newSeller();
      const walletOnly = await post(WALLET_ONLY, "/sellers/provision-tx", { wallet: seller.address, asset: "USDC" });
      expect(walletOnly.status, JSON.stringify(walletOnly.body)).toBe(503);
      expect(walletOnly.body).toMatchObject({
        code: "RAIL_NOT_ENABLED",
        reason: "rail_not_enabled",
        payToForms: ["wallet"],
      });
      expect(walletOnly.body.error).toMatch(/UNIVERSAL_SETTLE_PROGRAM_ID is not set/);
      expect(walletOnly.body.error).toContain(`put your own wallet ${seller.address} in payTo`);
      expect(walletOnly.body.error).toContain(`/sellers/${seller.address}/preview`);

      const neither = await post(NEITHER_FORM, "/sellers/provision-tx", { wallet: seller.address, asset: "USDC" });
      expect(neither.status).toBe(503);
      expect(neither.body).toMatchObject({ code: "RAIL_NOT_ENABLED", reason: "rail_not_enabled", payToForms: [] });
      expect(neither.body.error).toMatch(/use the sla-escrow or upto rail/);

      // A malformed request is still the caller's mistake first.
      const bad = await post(WALLET_ONLY, "/sellers/provision-tx", { wallet: "nope", asset: "USDC" });
      expect(bad.status).toBe(400);
    },
  );
});

describe("the minimum payment without a UniversalSettle program", () => {
  it(
    "is the program's documented minimum fee (10,000 raw), applied by /verify, the builder and enrich; an operator " +
      "floor replaces it",
    async () => {
      const seller = await newSeller();
      await createUsdcAccount(seller.address, seller);
      const buyer = await fundedBuyer(1_000_000);
      const line = (amount: string) => ({
        scheme: "exact",
        network: MAINNET,
        payTo: seller.address,
        asset: USDC,
        amount,
        maxTimeoutSeconds: 60,
        extra: { feePayer: TEST_FEE_PAYER.address },
      });
      const crafted = async (amount: string) => {
        const l = line(amount);
        return craftBody(l, standardInstructions(await paymentParts(buyer, l)), { signers: [buyer] });
      };

      const below = await post(WALLET_ONLY, "/verify", await crafted("9999"));
      expect(below.body).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_svm_payload_amount_below_minimum",
      });
      expect(below.body.invalidMessage).toMatch(/minimum of 10000 raw units/);
      expect((await post(WALLET_ONLY, "/verify", await crafted(DOCUMENTED_MINIMUM))).body).toMatchObject({
        isValid: true,
      });

      const built = await post(WALLET_ONLY, "/build-exact-payment-tx", {
        payer: buyer.address,
        accepted: line("9999"),
      });
      expect(built.status).toBe(400);
      expect(built.body).toMatchObject({
        reason: "invalid_exact_svm_payload_amount_below_minimum",
        minimumAmount: DOCUMENTED_MINIMUM,
      });
      const enriched = await post(WALLET_ONLY, "/payment-required/enrich", {
        x402Version: 2,
        resource: { url: "https://seller.test/a" },
        accepts: [line("9999")],
      });
      expect(enriched.status).toBe(400);
      expect(enriched.body).toMatchObject({
        reason: "invalid_exact_svm_payload_amount_below_minimum",
        minimumAmount: DOCUMENTED_MINIMUM,
      });

      // The operator's floor for the mint is used instead of the documented one (here lower, so 9,999 now verifies).
      const floor = { ...WALLET_ONLY, SVC_MIN_PAYMENT_RAW_BY_MINT: JSON.stringify({ [USDC]: "5000" }) };
      expect((await post(floor, "/verify", await crafted("9999"))).body).toMatchObject({ isValid: true });
      expect((await post(floor, "/verify", await crafted("4999"))).body).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_svm_payload_amount_below_minimum",
      });
    },
  );
});
