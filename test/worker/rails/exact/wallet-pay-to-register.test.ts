/**
 * Registering (verifying) a seller paid at its own wallet: the exact rail's wallet `payTo` form
 * (SVC_EXACT_WALLET_PAYTO, src/directory/sellers/register.ts). Where no UniversalSettle program is configured the
 * registration needs no vault: the same signed challenge, and the wallet's own USDC token account on chain instead
 * of the vault. The seller is then in the provider directory without a vault, its line is paid end to end and the
 * payment is in its history. A bad signature is still refused; where both forms run, the seller chooses.
 * Real: workerd, local D1, the local chain (devnet program ids and stand-ins; the Worker runs as mainnet production).
 */

import { address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../../../../src/chain/token-programs";
import { ProviderSingleResponseSchema } from "../../../../src/http/routes/providers-responses";
import { SellerRegisterResponseSchema } from "../../../../src/http/routes/sellers-responses";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { chainRpc, fundedBuyer, signAndSend, tokenBalance } from "../../../support/workerd/chain";
import { sellerOrigin, signedResourceChallenge, verifiedMerchant } from "../../../support/workerd/directory-fixtures";
import { createUsdcAccount, signAsBuyer, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { WALLET_FORM_ONLY } from "../../../support/workerd/production-vars";
import { fundedSeller, signMessage } from "../../../support/workerd/seller-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/** `[env.production]` without a UniversalSettle id, wallet form opted in. */
const WALLET_ONLY = WALLET_FORM_ONLY;
const NEITHER_FORM = { ...WALLET_ONLY, SVC_EXACT_WALLET_PAYTO: "false" };
const USDC = CLUSTERS.devnet.usdcMint;
const MAINNET = CLUSTERS.mainnet.network;

const request = (overrides: Record<string, unknown>, path: string, json?: unknown) =>
  callWithEnv(
    overrides,
    path,
    json === undefined
      ? {}
      : {
          method: "POST",
          headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() },
          body: JSON.stringify(json),
        },
  );

async function challengeFor(
  overrides: Record<string, unknown>,
  wallet: string,
  action = "seller:register",
): Promise<string> {
  const challenge = await request(overrides, `/sellers/${wallet}/challenge?action=${action}`);
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  return challenge.body.message;
}

const discovery = {
  serviceUrl: "https://wallet-seller.example",
  displayName: "Wallet seller",
  tags: ["data"],
  listingOptIn: true,
};

async function signedRegister(
  overrides: Record<string, unknown>,
  seller: KeyPairSigner,
  extra: Record<string, unknown> = {},
  message?: string,
) {
  const msg = message ?? (await challengeFor(overrides, seller.address));
  return { message: msg, signature: await signMessage(seller, msg), asset: "USDC", discovery, ...extra };
}

/** The same body, signed over a challenge issued for its terms (POST /sellers/{wallet}/register/challenge). */
async function boundRegister(
  overrides: Record<string, unknown>,
  seller: KeyPairSigner,
  extra: Record<string, unknown> = {},
) {
  const terms = { asset: "USDC", discovery, ...extra };
  const challenge = await request(overrides, `/sellers/${seller.address}/register/challenge`, terms);
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  return { message: challenge.body.message, signature: await signMessage(seller, challenge.body.message), ...terms };
}

describe("registering a wallet-form seller without a UniversalSettle program", () => {
  it(
    "needs the wallet's USDC token account (409 until it exists, the challenge kept), then lists the seller without " +
      "a vault, and its line is paid end to end",
    async () => {
      const seller = await fundedSeller();
      const ata = await usdcAccountOf(seller.address);
      const body = await signedRegister(WALLET_ONLY, seller);

      const early = await request(WALLET_ONLY, `/sellers/${seller.address}/register`, body);
      expect(early.status, JSON.stringify(early.body)).toBe(409);
      expect(early.body.error).toContain(`the wallet's USDC token account ${ata} does not exist on chain yet`);
      expect(early.body.error).toMatch(/this facilitator never creates it/);

      await createUsdcAccount(seller.address, seller);
      // The same challenge: it is used up only by the registration that writes.
      const registered = await request(WALLET_ONLY, `/sellers/${seller.address}/register`, body);
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      expect(v.safeParse(SellerRegisterResponseSchema, registered.body).issues).toBeUndefined();
      expect(registered.body).toMatchObject({
        wallet: seller.address,
        verified: true,
        lifecycle: { previewed: true, activated: true, verified: true },
      });
      expect(registered.body.provider).toMatchObject({
        walletPubkey: seller.address,
        settlementMode: "spl",
        splMint: USDC,
        payToForm: "wallet",
        serviceUrl: discovery.serviceUrl,
        listingOptIn: true,
      });
      expect(registered.body.provider.splitVaultPda).toBeUndefined();
      expect((await request(WALLET_ONLY, `/sellers/${seller.address}/register`, body)).status).toBe(401);

      const listed = await request(WALLET_ONLY, `/providers/${seller.address}`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(v.safeParse(ProviderSingleResponseSchema, listed.body).issues).toBeUndefined();
      expect(listed.body.entry).toMatchObject({
        walletPubkey: seller.address,
        payToForm: "wallet",
        displayName: "Wallet seller",
      });
      expect(listed.body.entry.splitVaultPda).toBeUndefined();
      const page = await request(WALLET_ONLY, "/providers?limit=100");
      expect(page.status).toBe(200);
      expect(page.body.entries).toContainEqual(
        expect.objectContaining({ walletPubkey: seller.address, payToForm: "wallet" }),
      );

      // The line the preview gives a registered seller is paid into its own token account.
      const preview = await request(WALLET_ONLY, `/sellers/${seller.address}/preview`);
      expect(preview.body.lifecycle).toEqual({ previewed: true, activated: true, verified: true });
      const buyer = await fundedBuyer(1_000_000);
      const built = await request(WALLET_ONLY, "/build-exact-payment-tx", {
        payer: buyer.address,
        accepted: preview.body.schemes.exact.line,
      });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const payment = built.body.verifyBodyTemplate;
      payment.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
      const settled = await request(WALLET_ONLY, "/settle", payment);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({
        success: true,
        payer: buyer.address,
        network: MAINNET,
      });
      expect(await tokenBalance(ata)).toBe(BigInt(preview.body.schemes.exact.line.amount));

      // And it is in the seller's payment history (recorded after the answer, hence the short wait).
      let entries: { payTo: string; kind: string; settlementSignature?: string }[] = [];
      for (
        let attempt = 0;
        attempt < 20 && !entries.some((e) => e.settlementSignature === settled.body.transaction);
        attempt++
      ) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const message = await challengeFor(WALLET_ONLY, seller.address, "seller:payments");
        const history = await request(WALLET_ONLY, "/seller/payments", {
          wallet: seller.address,
          message,
          signature: await signMessage(seller, message),
          limit: 50,
        });
        expect(history.status, JSON.stringify(history.body)).toBe(200);
        entries = history.body.entries;
      }
      expect(entries).toContainEqual(
        expect.objectContaining({
          kind: "settle",
          payTo: seller.address,
          settlementSignature: settled.body.transaction,
        }),
      );

      // Retiring works as for a vault seller: the directory drops it.
      const retireMessage = await challengeFor(WALLET_ONLY, seller.address, "seller:retire");
      const retired = await request(WALLET_ONLY, `/sellers/${seller.address}/retire`, {
        message: retireMessage,
        signature: await signMessage(seller, retireMessage),
      });
      expect(retired.status, JSON.stringify(retired.body)).toBe(200);
      expect((await request(WALLET_ONLY, `/providers/${seller.address}`)).status).toBe(404);
    },
  );

  it("still refuses a bad signature (401) and writes nothing", async () => {
    const seller = await fundedSeller();
    await createUsdcAccount(seller.address, seller);
    const other = await generateKeyPairSigner();
    const message = await challengeFor(WALLET_ONLY, seller.address);
    const forged = await request(WALLET_ONLY, `/sellers/${seller.address}/register`, {
      message,
      signature: await signMessage(other, message),
      asset: "USDC",
      discovery,
    });
    expect(forged.status, JSON.stringify(forged.body)).toBe(401);
    expect((await request(WALLET_ONLY, `/providers/${seller.address}`)).status).toBe(404);
  });

  it(
    "refuses native SOL (400: a wallet payTo is paid in a token), the vault form (503: no program) and any form " +
      "where neither runs (503)",
    async () => {
      const seller = await fundedSeller();
      const sol = await request(
        WALLET_ONLY,
        `/sellers/${seller.address}/register`,
        await signedRegister(WALLET_ONLY, seller, { asset: "SOL" }),
      );
      expect(sol.status, JSON.stringify(sol.body)).toBe(400);
      expect(sol.body.error).toMatch(/native SOL is paid only into a vault/);

      const vault = await request(
        WALLET_ONLY,
        `/sellers/${seller.address}/register`,
        await signedRegister(WALLET_ONLY, seller, { payToForm: "vault" }),
      );
      expect(vault.status, JSON.stringify(vault.body)).toBe(503);
      expect(vault.body).toMatchObject({ code: "RAIL_NOT_ENABLED", reason: "rail_not_enabled" });
      expect(vault.body.error).toMatch(/UNIVERSAL_SETTLE_PROGRAM_ID is not set/);

      const neither = await request(
        NEITHER_FORM,
        `/sellers/${seller.address}/register`,
        await signedRegister(NEITHER_FORM, seller),
      );
      expect(neither.status, JSON.stringify(neither.body)).toBe(503);
      expect(neither.body).toMatchObject({ code: "RAIL_NOT_ENABLED" });
      const wallet = await request(
        NEITHER_FORM,
        `/sellers/${seller.address}/register`,
        await signedRegister(NEITHER_FORM, seller, { payToForm: "wallet" }),
      );
      expect(wallet.status).toBe(503);
      expect(wallet.body.error).toMatch(/SVC_EXACT_WALLET_PAYTO is off/);

      const typo = await request(
        WALLET_ONLY,
        `/sellers/${seller.address}/register`,
        await signedRegister(WALLET_ONLY, seller, { payToForm: "ata" }),
      );
      expect(typo.status).toBe(400);
      expect(typo.body.error).toMatch(/payToForm/);
    },
  );
});

describe("a wallet-form seller paid in a mint other than USDC", () => {
  it(
    "needs the wallet's token account for that mint (SPL Token or Token-2022; 409 naming it until it exists) and is " +
      "listed with that mint",
    async () => {
      for (const tokenProgram of ["token", "token-2022"] as const) {
        const { mint } = await chainRpc<{ mint: string }>("localnet_createMint", [{ decimals: 6, tokenProgram }]);
        const seller = await fundedSeller();
        const [ata] = await findAssociatedTokenPda({
          owner: seller.address,
          mint: address(mint),
          tokenProgram: tokenProgram === "token" ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS,
        });
        // A plain challenge: the wallet form is the default here, so pr402's body registers it (asset = the mint).
        const body = await signedRegister(WALLET_ONLY, seller, { asset: mint });

        const early = await request(WALLET_ONLY, `/sellers/${seller.address}/register`, body);
        expect(early.status, JSON.stringify(early.body)).toBe(409);
        expect(early.body.error).toContain(ata);
        expect(early.body.error).not.toContain(USDC);

        // The seller's own account for the mint (created as any wallet does by receiving the token once).
        await chainRpc("requestTokenAirdrop", [seller.address, 1, mint]);
        const registered = await request(WALLET_ONLY, `/sellers/${seller.address}/register`, body);
        expect(registered.status, `${tokenProgram}: ${JSON.stringify(registered.body)}`).toBe(200);
        expect(registered.body.provider).toMatchObject({
          walletPubkey: seller.address,
          settlementMode: "spl",
          splMint: mint,
          payToForm: "wallet",
        });
        expect(registered.body.provider.splitVaultPda).toBeUndefined();
        expect((await request(WALLET_ONLY, `/providers/${seller.address}`)).body.entry).toMatchObject({
          splMint: mint,
          payToForm: "wallet",
        });

        // One asset per merchant wallet holds for the wallet form too: USDC now is refused (400), the mint's entry
        // kept.
        await createUsdcAccount(seller.address, seller);
        const other = await request(
          WALLET_ONLY,
          `/sellers/${seller.address}/register`,
          await signedRegister(WALLET_ONLY, seller, { asset: "USDC" }),
        );
        expect(other.status, JSON.stringify(other.body)).toBe(400);
        expect(other.body.error).toMatch(new RegExp(`already registered for ${mint}`));
      }
    },
  );

  it(
    "binds the mint in a challenge issued for the terms (where both forms run): USDC in its place is " + "refused",
    async () => {
      const { mint } = await chainRpc<{ mint: string }>("localnet_createMint", [{ decimals: 6 }]);
      const seller = await fundedSeller();
      await chainRpc("requestTokenAirdrop", [seller.address, 1, mint]);
      await createUsdcAccount(seller.address, seller);
      const signed = await boundRegister({}, seller, { asset: mint, payToForm: "wallet" });
      expect(signed.message).toContain(`\nasset: ${mint}\n`);
      const swapped = await call(`/sellers/${seller.address}/register`, {
        method: "POST",
        json: { ...signed, asset: "USDC" },
      });
      expect(swapped.status, JSON.stringify(swapped.body)).toBe(401);
      expect(swapped.body).toMatchObject({ reason: "challenge_terms_mismatch" });
      expect(swapped.body.error).toMatch(/^asset: /);
      const registered = await call(`/sellers/${seller.address}/register`, { method: "POST", json: signed });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      expect(registered.body.provider).toMatchObject({ splMint: mint, payToForm: "wallet" });
    },
  );
});

describe("where both forms run (the local default)", () => {
  it(
    "registers the vault form unless the seller chooses the wallet form; a later vault registration moves the entry " +
      "to the vault",
    async () => {
      const seller = await fundedSeller();
      await createUsdcAccount(seller.address, seller);
      // Without payToForm the vault form is meant: no vault yet, so 409 as before this form existed.
      const vault = await call(`/sellers/${seller.address}/register`, {
        method: "POST",
        json: await signedRegister({}, seller),
      });
      expect(vault.status, JSON.stringify(vault.body)).toBe(409);
      expect(vault.body.error).toMatch(/Activation has not landed on chain: the vault .* does not exist on chain yet/);

      // Choosing the wallet form here is not pr402's body: it needs a challenge issued for these terms.
      const plain = await call(`/sellers/${seller.address}/register`, {
        method: "POST",
        json: await signedRegister({}, seller, { payToForm: "wallet" }),
      });
      expect(plain.status, JSON.stringify(plain.body)).toBe(401);
      expect(plain.body.reason).toBe("challenge_terms_required");
      const wallet = await call(`/sellers/${seller.address}/register`, {
        method: "POST",
        json: await boundRegister({}, seller, { payToForm: "wallet" }),
      });
      expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
      expect(wallet.body.provider).toMatchObject({ walletPubkey: seller.address, payToForm: "wallet" });
      expect(wallet.body.provider.splitVaultPda).toBeUndefined();

      // Activating a vault and registering again (vault form) moves the entry to the vault, in pr402's shape.
      const built = await call("/sellers/provision-tx", {
        method: "POST",
        json: { wallet: seller.address, asset: "USDC" },
      });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      await signAndSend(built.body.transaction, [seller]);
      const moved = await call(`/sellers/${seller.address}/register`, {
        method: "POST",
        json: await signedRegister({}, seller),
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.provider).toMatchObject({ walletPubkey: seller.address, splitVaultPda: built.body.vaultPda });
      expect(moved.body.provider.payToForm).toBeUndefined();
      expect((await call(`/providers/${seller.address}`)).body.entry).toMatchObject({
        splitVaultPda: built.body.vaultPda,
      });
    },
  );

  it(
    "lets a wallet-form merchant register a payable resource, which the probe lists and the directory " + "serves",
    async () => {
      const merchant = await verifiedMerchant(sellerOrigin(), { payToForm: "wallet" });
      expect((await call(`/providers/${merchant.address}`)).body.entry).toMatchObject({ payToForm: "wallet" });
      const resourceUrl = `${sellerOrigin()}/wallet-form-${crypto.randomUUID().slice(0, 8)}`;
      const registered = await call("/resources/register", {
        method: "POST",
        json: {
          ...(await signedResourceChallenge(merchant, "resource:register")),
          resource: { resourceUrl, title: "Wallet-form resource", scheme: "exact" },
        },
      });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      expect(registered.body.probe.ok).toBe(true);
      const id = registered.body.id as number;
      expect((await call(`/resources/${id}`)).body).toMatchObject({ id, walletPubkey: merchant.address, resourceUrl });
      const probed = await call("/resources/probe", {
        method: "POST",
        json: { ...(await signedResourceChallenge(merchant, "resource:probe")), id },
      });
      expect(probed.body).toMatchObject({ ok: true, listed: true });
    },
  );
});
