/**
 * A registration challenge issued for the registration's terms (POST /sellers/{wallet}/register/challenge,
 * src/directory/sellers/register-challenge.ts): the message names the asset, the payTo form and the listing and
 * carries a digest of the discovery fields, so the wallet signs them. Whoever relays the signed challenge (a hosted
 * console, a proxy) cannot register other terms with it: each field changed after signing is a 401 with
 * `challenge_terms_mismatch`, nothing is written, and the challenge still registers the body it was issued for.
 * A plain challenge (GET /sellers/{wallet}/challenge, what pr402's clients sign) still registers pr402's body, but
 * not a payTo form other than the default (`challenge_terms_required`).
 * Real: workerd, local D1, the local chain (both exact forms run: the local default).
 */

import type { KeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { createUsdcAccount } from "../../../support/workerd/payment-fixtures";
import { WALLET_FORM_ONLY } from "../../../support/workerd/production-vars";
import { fundedSeller, signMessage } from "../../../support/workerd/seller-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

const USDC = CLUSTERS.devnet.usdcMint;
const discovery = {
  serviceUrl: "https://terms-seller.example/api",
  displayName: "Terms seller",
  description: "Signed terms",
  tags: ["data"],
  serviceMetadata: { plan: { tier: "pro", b: 1 } },
  listingOptIn: true,
};
const terms = { asset: "USDC", payToForm: "wallet", discovery };

function issue(wallet: string, body: Record<string, unknown>) {
  return call(`/sellers/${wallet}/register/challenge`, { method: "POST", json: body });
}

function register(wallet: string, body: Record<string, unknown>) {
  return call(`/sellers/${wallet}/register`, { method: "POST", json: body });
}

/**
 * A wallet-form seller (its USDC account on chain, so a register with the right terms writes) and its signed bound
 * challenge.
 */
async function sellerWithSignedTerms(
  body: Record<string, unknown> = terms,
): Promise<{ seller: KeyPairSigner; signed: { message: string; signature: string } }> {
  const seller = await fundedSeller();
  await createUsdcAccount(seller.address, seller);
  const issued = await issue(seller.address, body);
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return {
    seller,
    signed: { message: issued.body.message, signature: await signMessage(seller, issued.body.message) },
  };
}

describe("a registration challenge issued for its terms", () => {
  it("names the terms in the message the wallet signs", async () => {
    const seller = await fundedSeller();
    const issued = await issue(seller.address, { ...terms, ttlSeconds: 60 });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body).toMatchObject({ wallet: seller.address, action: "seller:register", ttlSeconds: 60 });
    expect(issued.body.terms).toEqual({
      asset: `USDC (mint ${USDC})`,
      payToForm: "wallet",
      serviceUrl: discovery.serviceUrl,
      listingOptIn: "true",
      discovery: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const lines = (issued.body.message as string).split("\n");
    expect(lines.slice(0, 9)).toEqual([
      "x402-facilitator-challenge: v2",
      expect.stringMatching(/^domain: /),
      `wallet: ${seller.address}`,
      "action: seller:register",
      `asset: USDC (mint ${USDC})`,
      "payToForm: wallet",
      `serviceUrl: ${discovery.serviceUrl}`,
      "listingOptIn: true",
      issued.body.terms.discovery.replace(/^/, "discovery: "),
    ]);
    expect(lines.slice(9).map((line) => line.split(": ")[0])).toEqual(["issued", "expires", "nonce", "mac"]);

    // The same discovery with its keys in another order is the same terms: the digest is over canonical JSON.
    const reordered = await issue(seller.address, {
      asset: "USDC",
      payToForm: "wallet",
      discovery: {
        listingOptIn: true,
        serviceMetadata: { plan: { b: 1, tier: "pro" } },
        tags: ["data"],
        description: "Signed terms",
        displayName: "Terms seller",
        serviceUrl: discovery.serviceUrl,
      },
    });
    expect(reordered.body.terms).toEqual(issued.body.terms);
    // Defaults are resolved: no payToForm is the vault here (both forms run), "USDC" is the mint, no discovery keeps
    // all.
    const defaults = await issue(seller.address, {});
    expect(defaults.body.terms).toMatchObject({
      asset: `USDC (mint ${USDC})`,
      payToForm: "vault",
      serviceUrl: "(unchanged)",
      listingOptIn: "(unchanged)",
    });
  });

  it(
    "refuses every field a relay changes after signing (401 challenge_terms_mismatch), writes nothing, and keeps " +
      "the challenge for the signed body",
    async () => {
      const { seller, signed } = await sellerWithSignedTerms();
      const tampered: [string, Record<string, unknown>][] = [
        ["payToForm", { ...terms, payToForm: "vault" }],
        ["payToForm", { asset: "USDC", discovery }], // left out: the default form (vault), not the signed one
        ["asset", { ...terms, asset: "SOL" }],
        ["serviceUrl", { ...terms, discovery: { ...discovery, serviceUrl: "https://relay.example/api" } }],
        ["serviceUrl", { asset: "USDC", payToForm: "wallet" }], // no discovery at all
        ["listingOptIn", { ...terms, discovery: { ...discovery, listingOptIn: false } }],
        ["discovery", { ...terms, discovery: { ...discovery, displayName: "Relay's name" } }],
        ["discovery", { ...terms, discovery: { ...discovery, description: undefined } }],
        ["discovery", { ...terms, discovery: { ...discovery, tags: ["data", "relay"] } }],
        ["discovery", { ...terms, discovery: { ...discovery, serviceMetadata: { plan: { tier: "free", b: 1 } } } }],
      ];
      for (const [field, body] of tampered) {
        const refused = await register(seller.address, { ...signed, ...body });
        expect(refused.status, `${field}: ${JSON.stringify(refused.body)}`).toBe(401);
        expect(refused.body).toMatchObject({ code: "UNAUTHORIZED", reason: "challenge_terms_mismatch" });
        expect(refused.body.error, JSON.stringify(body)).toMatch(new RegExp(`^${field}: `));
      }
      expect((await call(`/providers/${seller.address}`)).status).toBe(404);

      const registered = await register(seller.address, { ...signed, ...terms });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      expect(registered.body.provider).toMatchObject({
        walletPubkey: seller.address,
        payToForm: "wallet",
        splMint: USDC,
        serviceUrl: discovery.serviceUrl,
        displayName: discovery.displayName,
        listingOptIn: true,
      });
      expect((await register(seller.address, { ...signed, ...terms })).status).toBe(401); // used up
    },
  );

  it("holds the longest service URL (2048 characters, each percent-encoded to 6 in the message)", async () => {
    const serviceUrl = "https://long.example/" + "é".repeat(2048 - "https://long.example/".length);
    const long = { ...terms, discovery: { ...discovery, serviceUrl } };
    const { seller, signed } = await sellerWithSignedTerms(long);
    expect(signed.message.length).toBeGreaterThan(12_000);
    const registered = await register(seller.address, { ...signed, ...long });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.provider.serviceUrl).toBe(serviceUrl);
  });

  it("refuses a terms line edited after issue (the MAC covers the terms)", async () => {
    const { seller, signed } = await sellerWithSignedTerms();
    const edited = signed.message.replace("payToForm: wallet", "payToForm: vault");
    expect(edited).not.toBe(signed.message);
    const refused = await register(seller.address, {
      message: edited,
      signature: await signMessage(seller, edited),
      ...terms,
      payToForm: "vault",
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(401);
    expect(refused.body.error).toMatch(/altered/);
    const dropped = signed.message
      .split("\n")
      .filter((line) => !line.startsWith("discovery: "))
      .join("\n");
    const refusedDropped = await register(seller.address, {
      message: dropped,
      signature: await signMessage(seller, dropped),
      ...terms,
    });
    expect(refusedDropped.status).toBe(401);
  });

  it(
    "a plain challenge registers pr402's body, but not a payTo form other than the default (401 " +
      "challenge_terms_required)",
    async () => {
      const seller = await fundedSeller();
      await createUsdcAccount(seller.address, seller);
      for (const action of ["seller:register", "seller:any"]) {
        const plain = (await call(`/sellers/${seller.address}/challenge?action=${action}`)).body.message as string;
        const refused = await register(seller.address, {
          message: plain,
          signature: await signMessage(seller, plain),
          ...terms,
        });
        expect(refused.status, JSON.stringify(refused.body)).toBe(401);
        expect(refused.body).toMatchObject({ code: "UNAUTHORIZED", reason: "challenge_terms_required" });
        expect(refused.body.error).toMatch(/POST \/sellers\/\{wallet\}\/register\/challenge/);
      }
      // The default form, named or not, passes the terms check (then 409: this seller has no vault).
      const plain = (await call(`/sellers/${seller.address}/challenge?action=seller:register`)).body.message as string;
      const signature = await signMessage(seller, plain);
      for (const body of [
        { asset: "USDC", discovery },
        { asset: "USDC", discovery, payToForm: "vault" },
      ]) {
        const vault = await register(seller.address, { message: plain, signature, ...body });
        expect(vault.status, JSON.stringify(vault.body)).toBe(409);
      }
      // Where the wallet form is the only one (so the default), a plain challenge registers it, as pr402's clients do.
      const walletOnly = await fundedSeller();
      await createUsdcAccount(walletOnly.address, walletOnly);
      const message = (
        await callWithEnv(WALLET_FORM_ONLY, `/sellers/${walletOnly.address}/challenge?action=seller:register`)
      ).body.message as string;
      const registered = await callWithEnv(WALLET_FORM_ONLY, `/sellers/${walletOnly.address}/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ message, signature: await signMessage(walletOnly, message), ...terms }),
      });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      expect(registered.body.provider).toMatchObject({ payToForm: "wallet" });
    },
  );

  it("is refused for the other seller actions (it authorizes seller:register only)", async () => {
    const { seller, signed } = await sellerWithSignedTerms();
    const retire = await call(`/sellers/${seller.address}/retire`, { method: "POST", json: signed });
    expect(retire.status).toBe(401);
    expect(retire.body.error).toMatch(/authorizes "seller:register"/);
  });

  it("validates the terms when issuing (400 naming the field, 503 for a form not run here)", async () => {
    const seller = await fundedSeller();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ payToForm: "ata" }, /^payToForm:/],
      [{ asset: "NOT-A-MINT" }, /^asset:/],
      [{ discovery: { serviceUrl: "ftp://x.example" } }, /^discovery\.serviceUrl:/],
      [{ discovery: { tags: ["UPPER"] } }, /^discovery\.tags/],
      [{ ttlSeconds: 0 }, /^ttlSeconds:/],
      [{ ttlSeconds: "60" }, /^ttlSeconds:/],
    ];
    for (const [body, error] of cases) {
      const refused = await issue(seller.address, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toMatch(error);
    }
    const off = await callWithEnv(
      { SVC_EXACT_WALLET_PAYTO: "false" },
      `/sellers/${seller.address}/register/challenge`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ payToForm: "wallet" }),
      },
    );
    expect(off.status, JSON.stringify(off.body)).toBe(503);
    expect(off.body).toMatchObject({ code: "RAIL_NOT_ENABLED", reason: "rail_not_enabled" });
  });
});
