import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { signAndSend } from "../../../support/workerd/chain";
import {
  createUsdcAccount,
  NATIVE_SOL,
  PROGRAM_ID,
  USDC,
  usdcAccountOf,
} from "../../../support/workerd/payment-fixtures";
import { fundedSeller, signMessage } from "../../../support/workerd/seller-fixtures";
import { call } from "../../../support/workerd/worker-http";

async function provision(seller: KeyPairSigner, asset: string) {
  const response = await call("/sellers/provision-tx", { method: "POST", json: { wallet: seller.address, asset } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe("seller lifecycle on the local chain", () => {
  it("previews, activates (sovereign), registers and is listed", async () => {
    const seller = await fundedSeller();

    const before = await call(`/sellers/${seller.address}/preview`);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.lifecycle).toEqual({ previewed: true, activated: false, verified: false, nextStep: "activate" });
    expect(before.body.schemes.exact).toMatchObject({
      status: "NotProvisioned",
      isSovereign: false,
      provisioningStatus: null,
      payToKind: "splitVault",
      payTo: null,
    }); // pr402's name
    // Never a payTo that cannot be paid: before activation the rail lookup names the vault-to-be but gives no payTo,
    // and says how to activate.
    const railBefore = await call(`/sellers/${seller.address}/rails/exact`);
    expect(railBefore.status).toBe(200);
    expect(railBefore.body).toMatchObject({ status: "NotProvisioned", payTo: null });
    expect(railBefore.body.vaultPda).toBe(before.body.schemes.exact.vaultPda);
    expect(railBefore.body.payToResolveNote).toMatch(
      /^No payTo yet: the vault \S+ of \S+ does not exist\. Activate it: POST /,
    );
    expect(before.body.schemes["sla-escrow"].assets.SOL.escrowPda).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(before.body.schemes["sla-escrow"].bankPda).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

    const built = await provision(seller, "USDC");
    expect(built).toMatchObject({
      wallet: seller.address,
      asset: "USDC",
      assetMint: USDC,
      vaultPda: before.body.schemes.exact.vaultPda,
      solStoragePda: before.body.schemes.exact.solStoragePda,
      alreadyProvisioned: false,
      statusCode: "VAULT_AND_ATA",
      feePayer: seller.address,
      payer: seller.address,
      payerSignatureIndex: 0,
    });
    expect(built.vaultTokenAta).toBeTypeOf("string");
    expect(built.recentBlockhash).toBeTypeOf("string");
    await signAndSend(built.transaction, [seller]);

    // Sweeps pay into the seller's own USDC account and never create it: the preview says so until it exists.
    const withoutAccount = await call(`/sellers/${seller.address}/preview`);
    expect(withoutAccount.body.lifecycle).toEqual({
      previewed: true,
      activated: true,
      verified: false,
      nextStep: "create_token_account",
      blockedReason: "seller_token_account_missing",
      sellerTokenAccount: await usdcAccountOf(seller.address),
    });
    await createUsdcAccount(seller.address, seller);
    const activated = await call(`/sellers/${seller.address}/preview`);
    expect(activated.body.lifecycle).toEqual({ previewed: true, activated: true, verified: false, nextStep: "verify" });
    expect(activated.body.schemes.exact).toMatchObject({
      status: "Sovereign",
      isSovereign: true,
      feeBps: "90",
      provisioningStatus: null,
    });
    const railAfter = await call(`/sellers/${seller.address}/rails/exact`);
    expect(railAfter.body).toMatchObject({ status: "Sovereign", payTo: railBefore.body.vaultPda });
    expect(railAfter.body.payToResolveNote).toContain("extra.merchantWallet is not needed");

    const again = await provision(seller, "USDC");
    expect(again).toMatchObject({ alreadyProvisioned: true, statusCode: "ALREADY_PROVISIONED" });
    expect(again.transaction).toBeUndefined();

    const challenge = await call(`/sellers/${seller.address}/challenge?action=seller:register`);
    expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
    expect(challenge.body).toMatchObject({ wallet: seller.address, action: "seller:register", ttlSeconds: 600 });
    const registered = await call(`/sellers/${seller.address}/register`, {
      method: "POST",
      json: {
        message: challenge.body.message,
        signature: await signMessage(seller, challenge.body.message),
        asset: "USDC",
        discovery: {
          serviceUrl: "https://seller.example",
          displayName: "Seller",
          tags: ["data", "api"],
          listingOptIn: true,
          serviceMetadata: { plan: "basic" },
        },
      },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);

    const verified = await call(`/sellers/${seller.address}/preview`);
    expect(verified.body.lifecycle).toEqual({ previewed: true, activated: true, verified: true });

    const listed = await call(`/providers/${seller.address}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toMatchObject({
      walletPubkey: seller.address,
      settlementMode: "spl",
      splMint: USDC,
      splitVaultPda: built.vaultPda,
      serviceUrl: "https://seller.example",
      displayName: "Seller",
      tags: ["data", "api"],
      serviceMetadata: { plan: "basic" },
    });
    // The vault form's entry is pr402's: no payToForm (only a seller paid at its own wallet has one).
    expect(listed.body.entry.payToForm).toBeUndefined();
    expect(listed.body.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const page = await call("/providers?limit=100");
    expect(page.status).toBe(200);
    expect(page.body.entries.map((e: { walletPubkey: string }) => e.walletPubkey)).toContain(seller.address);
  });

  it("adds a token account to an existing SOL vault (ATA_ONLY)", async () => {
    const seller = await fundedSeller();
    const sol = await provision(seller, "SOL");
    expect(sol).toMatchObject({ statusCode: "VAULT_ONLY", assetMint: NATIVE_SOL, alreadyProvisioned: false });
    expect(sol.vaultTokenAta).toBeUndefined();
    await signAndSend(sol.transaction, [seller]);
    expect(await provision(seller, "SOL")).toMatchObject({
      statusCode: "ALREADY_PROVISIONED",
      alreadyProvisioned: true,
    });

    const usdc = await provision(seller, USDC);
    expect(usdc).toMatchObject({ statusCode: "ATA_ONLY", asset: "USDC", alreadyProvisioned: false });
    await signAndSend(usdc.transaction, [seller]);
    expect(await provision(seller, "usdc")).toMatchObject({ statusCode: "ALREADY_PROVISIONED" });
  });

  it("answers the rail lookup with the canonical payTo, without a database", async () => {
    const seller = await generateKeyPairSigner();
    const preview = await call(`/sellers/${seller.address}/preview`);
    const exact = await call(`/sellers/${seller.address}/rails/exact`);
    expect(exact.status).toBe(200);
    // A seller that has not activated: the vault's address, but no payTo (nothing would settle into it).
    expect(exact.body).toMatchObject({
      scheme: "exact",
      vaultPda: preview.body.schemes.exact.vaultPda,
      payTo: null,
      programId: PROGRAM_ID,
    });
    const escrow = await call(`/sellers/${seller.address}/rails/sla-escrow`);
    expect(escrow.status).toBe(200);
    expect(escrow.body).toMatchObject({
      scheme: "sla-escrow",
      asset: "USDC",
      payTo: preview.body.schemes["sla-escrow"].assets.USDC.escrowPda,
    });
    const sol = await call(`/sellers/${seller.address}/rails/sla-escrow?asset=${NATIVE_SOL}`);
    expect(sol.body.payTo).toBe(preview.body.schemes["sla-escrow"].assets.SOL.escrowPda);
  });

  it("rejects bad inputs with 400 naming the field", async () => {
    const seller = await generateKeyPairSigner();
    const cases: [string, RequestInit & { json?: unknown }, RegExp][] = [
      ["/sellers/not-a-wallet/preview", {}, /^wallet:/],
      ["/sellers/0OIl/rails/exact", {}, /^wallet:/],
      [`/sellers/${seller.address}/rails/upto`, {}, /^scheme:/],
      [`/sellers/${seller.address}/rails/sla-escrow?asset=nope`, {}, /^asset:/],
      [`/sellers/${seller.address}/challenge?action=seller:dance`, {}, /^action:/],
      [`/sellers/${seller.address}/challenge?ttlSeconds=0`, {}, /^ttlSeconds:/],
      ["/sellers/provision-tx", { method: "POST", json: { wallet: "nope", asset: "SOL" } }, /^wallet:/],
      ["/sellers/provision-tx", { method: "POST", json: { wallet: seller.address } }, /^asset:/],
      ["/sellers/provision-tx", { method: "POST", json: { wallet: seller.address, asset: "DOGE" } }, /^asset:/],
      [
        "/sellers/provision-tx",
        { method: "POST", json: { wallet: seller.address, asset: PROGRAM_ID } },
        /^asset: .*not an initialized/,
      ],
      [
        "/sellers/provision-tx",
        { method: "POST", json: { wallet: seller.address, asset: seller.address } },
        /^asset: .*does not exist/,
      ],
      ["/sellers/provision-tx", { method: "POST", json: { wallet: PROGRAM_ID, asset: "SOL" } }, /^wallet:/],
    ];
    for (const [path, init, error] of cases) {
      const response = await call(path, init);
      expect(response.status, path).toBe(400);
      expect(response.body.error, path).toMatch(error);
    }
  });
});
