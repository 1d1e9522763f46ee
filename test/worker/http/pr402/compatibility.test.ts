import { type Address, createKeyPairSignerFromBytes, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";
import { decodePayment, PAYMENT_STATE, RESOLUTION_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import { findBankPda, findEscrowPda, findEscrowSolStoragePda } from "../../../../src/rails/sla-escrow/program/pda";
import { LOCAL_ORACLE } from "../../../support/keys";
import { chainRpc, fundedBuyer, signAndSend, tokenBalance } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { sellerOrigin, signedResourceChallenge, verifiedMerchant } from "../../../support/workerd/directory-fixtures";
import { ESCROW_PROGRAM, hex32, ORACLE, post } from "../../../support/workerd/escrow-fixtures";
import { NATIVE_SOL, USDC } from "../../../support/workerd/payment-fixtures";
import { pr402ResponseProblems } from "../../../support/workerd/pr402-shape";
import { fundedSeller, signMessage } from "../../../support/workerd/seller-fixtures";
import { call } from "../../../support/workerd/worker-http";

/**
 * Issue 21 §2, live: what pr402's existing clients send and read, against this Worker in workerd with real D1/KV and
 * the local chain. Shapes are checked against pr402's own openapi.json (pr402-shape.ts); the field-by-field comparison
 * of every shared operation is contract.test.ts.
 */
const AMOUNT = 2_000_000n;

async function paymentState(payment: Address) {
  const result = await chainRpc<{ value: { data: [string, string] } | null }>("getAccountInfo", [
    payment,
    { encoding: "base64", commitment: "confirmed" },
  ]);
  return result.value ? decodePayment(Uint8Array.from(atob(result.value.data[0]), (c) => c.charCodeAt(0))) : null;
}

const ataOf = async (owner: Address) =>
  (await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM }))[0];

describe("pr402 clients: challenges, capabilities, provisioning", () => {
  it(
    "a challenge fetched without action is the one-time family wildcard bound to the wallet (seller:any, " +
      "resource:any)",
    async () => {
      const seller = await generateKeyPairSigner();
      const sellerChallenge = await call(`/sellers/${seller.address}/challenge`);
      expect(sellerChallenge.status).toBe(200);
      expect(sellerChallenge.body).toMatchObject({ wallet: seller.address, action: "seller:any" });
      expect(sellerChallenge.body.message).toContain(`wallet: ${seller.address}\naction: seller:any\n`);
      expect(pr402ResponseProblems("facilitatorSellerChallenge", sellerChallenge.body)).toEqual([]);
      const resourceChallenge = await call(`/resources/register/challenge?wallet=${seller.address}`);
      expect(resourceChallenge.body).toMatchObject({ wallet: seller.address, action: "resource:any" });
      expect(pr402ResponseProblems("facilitatorResourceChallenge", resourceChallenge.body)).toEqual([]);
    },
  );

  it("a seller:any challenge registers once; the same challenge cannot be used again for retire", async () => {
    const seller = await fundedSeller();
    const built = await call("/sellers/provision-tx", {
      method: "POST",
      json: { wallet: seller.address, asset: "USDC" },
    });
    await signAndSend(built.body.transaction, [seller]);
    const { message } = (await call(`/sellers/${seller.address}/challenge`)).body;
    const signature = await signMessage(seller, message);
    // pr402's body: wallet in the body, no asset (USDC by default).
    const registered = await call(`/sellers/${seller.address}/register`, {
      method: "POST",
      json: { wallet: seller.address, message, signature },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    // The register answer is the preview body (pr402's OnboardResponse) plus our provider entry.
    expect(pr402ResponseProblems("facilitatorSellerRegister", registered.body)).toEqual([]);
    expect(registered.body).toMatchObject({
      wallet: seller.address,
      facilitator: expect.any(String),
      lifecycle: { activated: true, verified: true },
      verified: true,
    });
    expect(registered.body.provider).toMatchObject({
      walletPubkey: seller.address,
      settlementMode: "spl",
      splMint: USDC,
    });
    expect(registered.body.schemes.exact.vaultPda).toBe(built.body.vaultPda);
    const reused = await call(`/sellers/${seller.address}/retire`, {
      method: "POST",
      json: { wallet: seller.address, message, signature },
    });
    expect(reused.status).toBe(401);
    expect(reused.body.error).toMatch(/already used/);
  });

  it(
    "capabilities carry pr402's feature flags as booleans, its endpoint names and the seller endpoint guide " + "array",
    async () => {
      const { body } = await call("/capabilities");
      for (const flag of [
        "universalSettleExact",
        "slaEscrow",
        "unsignedExactPaymentTxBuild",
        "unsignedSlaEscrowPaymentTxBuild",
        "sellerLifecycleBlock",
        "acceptsBase64OnboardSignature",
        "buildResponseSignerPubkeys",
        "publicProviderDirectory",
        "publicResourceDirectory",
      ]) {
        expect(typeof body.features[flag], flag).toBe("boolean");
      }
      expect(body.features).toMatchObject({
        sellerLifecycleBlock: true,
        acceptsBase64OnboardSignature: true,
        buildResponseSignerPubkeys: true,
        publicProviderDirectory: true,
      });
      for (const key of [
        "buildOracleConfirmTx",
        "slaEscrowSettle",
        "slaEscrowSettleCron",
        "sellerRailInfo",
        "provider",
        "paymentRequiredEnrich",
      ]) {
        expect(body.httpEndpoints[key], key).toBeDefined();
      }
      expect(body.httpEndpoints.slaEscrowSettle).toEqual({
        method: "POST",
        path: "/api/v1/facilitator/sla-escrow-settle",
        auth: "bearer",
      });
      expect(Array.isArray(body.sellerEndpointGuide)).toBe(true);
      expect(body.sellerEndpointGuide[0]).toMatchObject({
        goal: expect.any(String),
        method: "GET",
        path: "/api/v1/facilitator/sellers/{wallet}/preview",
        sideEffect: "read-only",
      });
    },
  );

  it("the provision response carries schemaVersion and pr402's required members", async () => {
    const seller = await generateKeyPairSigner();
    const built = await call("/sellers/provision-tx", {
      method: "POST",
      json: { wallet: seller.address, asset: "SOL" },
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    expect(built.body.schemaVersion).toBe((await call("/capabilities")).body.schemaVersion);
    expect(pr402ResponseProblems("facilitatorSellerProvisionTx", built.body)).toEqual([]);
  });

  it(
    "the preview follows pr402: facilitator string, feeBps string, payToKind, the SOL escrow as vaultPda and " +
      "vaultPdaPreviews",
    async () => {
      const seller = await generateKeyPairSigner();
      const preview = await call(`/sellers/${seller.address}/preview`);
      expect(preview.status).toBe(200);
      expect(pr402ResponseProblems("facilitatorSellerPreview", preview.body)).toEqual([]);
      const { exact, "sla-escrow": escrow } = preview.body.schemes;
      expect(typeof preview.body.facilitator).toBe("string");
      expect(preview.body.facilitatorInfo.feePayer).toEqual(expect.any(String));
      expect(exact).toMatchObject({
        payToKind: "splitVault",
        payToResolve: "onboard.vaultPda",
        feeBps: "100",
        tokenPda: null,
      });
      const [bank] = await findBankPda(ESCROW_PROGRAM);
      const [solEscrow] = await findEscrowPda(ESCROW_PROGRAM, NATIVE_SOL, bank);
      const [solStorage] = await findEscrowSolStoragePda(ESCROW_PROGRAM, NATIVE_SOL, bank, solEscrow);
      const [usdcEscrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
      expect(escrow).toMatchObject({
        payToKind: "escrowPda",
        payToResolve: "discovery.vaultPda",
        vaultPda: solEscrow,
        solStoragePda: solStorage,
        vaultPdaPreviewMint: NATIVE_SOL,
        payTo: usdcEscrow,
      });
      expect(escrow.feeBps).toMatch(/^\d+$/);
      expect(escrow.vaultPdaPreviews).toEqual([
        { label: "SOL", mint: NATIVE_SOL, vaultPda: solEscrow, solStoragePda: solStorage },
        expect.objectContaining({ label: "USDC", mint: USDC, vaultPda: usdcEscrow }),
      ]);
      const rail = await call(`/sellers/${seller.address}/rails/sla-escrow?asset=USDC`);
      expect(pr402ResponseProblems("facilitatorSellerRailInfo", rail.body)).toEqual([]);
      expect(rail.body).toMatchObject({ vaultPda: usdcEscrow, vaultPdaPreviewMint: USDC });
    },
  );
});

describe("pr402 clients: the directory", () => {
  let merchant: KeyPairSigner;
  beforeAll(async () => {
    merchant = await verifiedMerchant(sellerOrigin());
  });

  it(
    "/providers/{wallet} and /resources/{id} answer {entry, notice} and keep the entry's members at the top " + "level",
    async () => {
      const provider = await call(`/providers/${merchant.address}`);
      expect(provider.status, JSON.stringify(provider.body)).toBe(200);
      expect(pr402ResponseProblems("facilitatorProviderGet", provider.body)).toEqual([]);
      expect(provider.body.entry).toMatchObject({ walletPubkey: merchant.address, serviceUrl: expect.any(String) });
      expect(provider.body.walletPubkey).toBe(merchant.address);
      expect(provider.body.notice).toEqual((await call("/providers")).body.notice);

      const url = `${sellerOrigin()}/pr402-${crypto.randomUUID().slice(0, 8)}`;
      const registered = await call("/resources/register", {
        method: "POST",
        json: {
          ...(await signedResourceChallenge(merchant, "resource:register")),
          resource: { resourceUrl: url, title: "Compat", scheme: "exact" },
        },
      });
      expect(registered.body.probe.ok, JSON.stringify(registered.body)).toBe(true);
      const resource = await call(`/resources/${registered.body.id}`);
      expect(pr402ResponseProblems("facilitatorResourceGet", resource.body)).toEqual([]);
      expect(resource.body.entry).toMatchObject({ id: registered.body.id, resourceUrl: url });
      expect(resource.body.id).toBe(registered.body.id);
      expect(resource.body.notice).toEqual(expect.any(String));
    },
  );

  it("probe and retire accept resourceUrl as well as id (a resource:any challenge, one use each)", async () => {
    const url = `${sellerOrigin()}/pr402-url-${crypto.randomUUID().slice(0, 8)}`;
    const registered = await call("/resources/register", {
      method: "POST",
      json: {
        ...(await signedResourceChallenge(merchant, "resource:register")),
        resource: { resourceUrl: url, title: "By URL", scheme: "exact" },
      },
    });
    const id = registered.body.id as number;
    const anyChallenge = async () => {
      const { message } = (await call(`/resources/register/challenge?wallet=${merchant.address}`)).body;
      return { wallet: merchant.address, message, signature: await signMessage(merchant, message) };
    };
    const probed = await call("/resources/probe", {
      method: "POST",
      json: { ...(await anyChallenge()), resourceUrl: url },
    });
    expect(probed.status, JSON.stringify(probed.body)).toBe(200);
    expect(probed.body).toMatchObject({ id, ok: true });
    const both = await call("/resources/retire", {
      method: "POST",
      json: { ...(await anyChallenge()), id, resourceUrl: url },
    });
    expect(both.status).toBe(400);
    const unknown = await call("/resources/retire", {
      method: "POST",
      json: { ...(await anyChallenge()), resourceUrl: `${url}-nope` },
    });
    expect(unknown.status).toBe(404);
    const retired = await call("/resources/retire", {
      method: "POST",
      json: { ...(await anyChallenge()), resourceUrl: url },
    });
    expect(retired.status, JSON.stringify(retired.body)).toBe(200);
    expect(retired.body).toMatchObject({ id, retired: true });
    expect((await call(`/resources/${id}`)).status).toBe(404);
  });
});

describe("pr402 clients: escrow builders and the settle-now helper", () => {
  it(
    "v2 funding without overrides → pr402's ConfirmOracle builder (paymentUid string) → settle-now refund signed " +
      "and paid by the buyer",
    async () => {
      const buyer = await fundedBuyer(10_000_000);
      const seller = await fundedBuyer(0);
      // pr402's BuildFundPaymentV2TxRequest without the optional overrides and arbitration window.
      const funded = await post("/build-sla-escrow-payment-v2-tx", {
        buyer: buyer.address,
        seller: seller.address,
        mint: USDC,
        amount: AMOUNT.toString(),
        ttlSeconds: 3_600,
        slaHash: hex32(),
        oracleAuthority: ORACLE,
      });
      expect(funded.status, JSON.stringify(funded.body)).toBe(200);
      expect(funded.body).toMatchObject({
        x402Version: 2,
        paymentUid: expect.any(String),
        paymentUidHex: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(pr402ResponseProblems("buildSlaEscrowPaymentV2Tx", funded.body)).toEqual([]);
      await signAndSend(funded.body.transaction, [buyer]);
      const buyerAta = await ataOf(buyer.address);
      const afterFunding = await tokenBalance(buyerAta);

      // Too early: nothing to settle before a verdict or expiry.
      const early = await post("/build-sla-escrow-settle-tx", { paymentUidHex: funded.body.paymentUidHex });
      expect(early.status).toBe(400);
      expect(early.body.error).toMatch(/not yet eligible/);

      // The ABI's ConfirmOracle judges a submitted delivery: the seller submits first (pr402's submit-delivery
      // builder).
      const deliveryHash = hex32();
      await chainRpc("requestAirdrop", [seller.address, 100_000_000]);
      const delivery = await post("/build-sla-escrow-submit-delivery-tx", {
        seller: seller.address,
        mint: USDC,
        paymentUidHex: funded.body.paymentUidHex,
        deliveryHash,
      });
      expect(delivery.status, JSON.stringify(delivery.body)).toBe(200);
      expect(pr402ResponseProblems("buildSlaEscrowSubmitDeliveryTx", delivery.body)).toEqual([]);
      await signAndSend(delivery.body.transaction, [seller]);
      const oracle = await createKeyPairSignerFromBytes(LOCAL_ORACLE.secretKey);
      await chainRpc("requestAirdrop", [oracle.address, 100_000_000]);
      const stranger = await generateKeyPairSigner();
      const wrongOracle = await post("/oracle/build-confirm", {
        oracleAuthority: stranger.address,
        mint: USDC,
        paymentUid: funded.body.paymentUid,
        deliveryHash,
        resolutionState: 2,
        resolutionReason: 1,
      });
      expect(wrongOracle.status).toBe(400);
      const confirm = await post("/oracle/build-confirm", {
        oracleAuthority: oracle.address,
        mint: USDC,
        paymentUid: funded.body.paymentUid,
        deliveryHash,
        resolutionState: RESOLUTION_STATE.REJECTED,
        resolutionReason: 1,
      });
      expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
      expect(pr402ResponseProblems("buildOracleConfirmTx", confirm.body)).toEqual([]);
      expect(confirm.body).toMatchObject({
        x402Version: 2,
        feePayer: oracle.address,
        paymentPda: funded.body.paymentPda,
      });
      await signAndSend(confirm.body.transaction, [oracle]);
      expect((await paymentState(funded.body.paymentPda))?.resolutionState).toBe(RESOLUTION_STATE.REJECTED);

      // pr402's body is only the uid; the refund's recipient (the buyer) signs and pays, never the facilitator.
      const settle = await post("/build-sla-escrow-settle-tx", { paymentUidHex: funded.body.paymentUidHex });
      expect(settle.status, JSON.stringify(settle.body)).toBe(200);
      expect(pr402ResponseProblems("facilitatorBuildSlaEscrowSettleTx", settle.body)).toEqual([]);
      expect(settle.body).toMatchObject({
        action: "refund_payment",
        feePayer: buyer.address,
        paymentPda: funded.body.paymentPda,
      });
      const facilitator = (await call("/capabilities")).body.feePayer;
      expect(settle.body.signerPubkeys).toEqual([buyer.address]);
      expect(settle.body.signerPubkeys).not.toContain(facilitator);
      const oracleBefore = await tokenBalance(await ataOf(oracle.address)).catch(() => 0n);
      await signAndSend(settle.body.unsignedTransaction, [buyer]);
      expect((await paymentState(funded.body.paymentPda))?.state).toBe(PAYMENT_STATE.REFUNDED);
      // The refund returns the amount less the oracle's tip, which the oracle receives (docs/sla-escrow-abi.md, ABI
      // §5.4): nothing is lost.
      const oracleAta = await ataOf(oracle.address);
      const refunded = (await tokenBalance(buyerAta)) - afterFunding;
      expect(refunded + (await tokenBalance(oracleAta)) - oracleBefore).toBe(AMOUNT);
      expect(refunded).toBeLessThanOrEqual(AMOUNT);
      const again = await post("/build-sla-escrow-settle-tx", { paymentUidHex: funded.body.paymentUidHex });
      expect(again.status).toBe(400);
      expect(again.body.error).toMatch(/already settled/);
    },
  );

  it("resolve-split takes no resolutionReason (pr402 defaults it to 0): the body passes validation", async () => {
    const adjudicator = await generateKeyPairSigner();
    const split = await post("/build-sla-escrow-resolve-split-tx", {
      adjudicator: adjudicator.address,
      mint: USDC,
      paymentUidHex: hex32(),
      sellerBps: 5_000,
      expectedDeliveryHash: "0".repeat(64),
      seller: (await generateKeyPairSigner()).address,
      buyer: (await generateKeyPairSigner()).address,
    });
    // Past validation: the payment does not exist, and that is the answer (not a missing resolutionReason).
    expect(split.status).toBe(400);
    expect(split.body.error).toMatch(/no SLA-Escrow payment/);
  });
});
