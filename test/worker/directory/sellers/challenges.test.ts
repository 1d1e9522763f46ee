import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { signAndSend } from "../../../support/workerd/chain";
import { enrichedLine, NATIVE_SOL, USDC } from "../../../support/workerd/payment-fixtures";
import { fundedSeller, signMessage } from "../../../support/workerd/seller-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/** Activates the seller's vault for `asset` the sovereign way: provision-tx, sign as the seller, send. */
async function activate(seller: KeyPairSigner, asset: string): Promise<void> {
  const built = await call("/sellers/provision-tx", { method: "POST", json: { wallet: seller.address, asset } });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  if (!built.body.transaction) return;
  await signAndSend(built.body.transaction, [seller]);
}

async function challengeFor(wallet: string, action = "seller:register", extra = ""): Promise<string> {
  const response = await call(`/sellers/${wallet}/challenge?action=${action}${extra}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.message;
}

function register(wallet: string, body: Record<string, unknown>) {
  return call(`/sellers/${wallet}/register`, { method: "POST", json: body });
}

describe("wallet-signed challenges", () => {
  it("issues a MAC'd one-time challenge with the configured TTL, shortened on request", async () => {
    const seller = await generateKeyPairSigner();
    const response = await call(`/sellers/${seller.address}/challenge?action=resource:list&ttlSeconds=30`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ wallet: seller.address, action: "resource:list", ttlSeconds: 30 });
    expect(response.body.expiresUnix - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(31);
    expect(response.body.message).toMatch(
      new RegExp(`^x402-facilitator-challenge: v1\\ndomain: .+\\nwallet: ${seller.address}\\naction: resource:list\\n`),
    );
    expect(response.body.message).toMatch(/\nnonce: [0-9a-f]{32}\nmac: [A-Za-z0-9_-]{43}$/);
    const defaults = await call(`/sellers/${seller.address}/challenge`);
    // pr402 (public/openapi.json facilitatorSellerChallenge): without ?action the challenge is the family wildcard.
    expect(defaults.body).toMatchObject({ action: "seller:any", ttlSeconds: 600 });
  });

  it("answers 503 when no MAC key is configured, never issuing or accepting unsigned challenges", async () => {
    const seller = await generateKeyPairSigner();
    const issued = await callWithEnv({ CHALLENGE_MAC_KEY: undefined }, `/sellers/${seller.address}/challenge`);
    expect(issued.status).toBe(503);
    expect(issued.body.code).toBe("SERVICE_UNAVAILABLE");
  });

  it(
    "registers once; a replay, a wrong action, a foreign signature, an edited message or an expired challenge get " +
      "401",
    async () => {
      const seller = await fundedSeller();
      await activate(seller, "SOL");

      // A bad signature first: it must not burn the challenge.
      const message = await challengeFor(seller.address);
      const stranger = await generateKeyPairSigner();
      const foreign = await register(seller.address, {
        message,
        signature: await signMessage(stranger, message),
        asset: "SOL",
      });
      expect(foreign.status).toBe(401);
      expect(foreign.body.error).toMatch(/^signature:/);

      const ok = await register(seller.address, {
        message,
        signature: await signMessage(seller, message, "base64"),
        asset: "SOL",
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.provider).toMatchObject({
        walletPubkey: seller.address,
        settlementMode: "native_sol",
        listingOptIn: false,
      });

      const replay = await register(seller.address, {
        message,
        signature: await signMessage(seller, message),
        asset: "SOL",
      });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatch(/already used/);

      const retireChallenge = await challengeFor(seller.address, "seller:retire");
      const wrongAction = await register(seller.address, {
        message: retireChallenge,
        signature: await signMessage(seller, retireChallenge),
        asset: "SOL",
      });
      expect(wrongAction.status).toBe(401);
      expect(wrongAction.body.error).toMatch(/seller:retire/);

      const original = await challengeFor(seller.address, "seller:retire");
      const edited = original.replace("action: seller:retire", "action: seller:register");
      const forged = await register(seller.address, {
        message: edited,
        signature: await signMessage(seller, edited),
        asset: "SOL",
      });
      expect(forged.status).toBe(401);
      expect(forged.body.error).toMatch(/altered/);

      const otherWallet = await challengeFor(stranger.address);
      const foreignChallenge = await register(seller.address, {
        message: otherWallet,
        signature: await signMessage(seller, otherWallet),
        asset: "SOL",
      });
      expect(foreignChallenge.status).toBe(401);

      const shortLived = await challengeFor(seller.address, "seller:register", "&ttlSeconds=1");
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const expired = await register(seller.address, {
        message: shortLived,
        signature: await signMessage(seller, shortLived),
        asset: "SOL",
      });
      expect(expired.status).toBe(401);
      expect(expired.body.error).toMatch(/expired/);

      const garbage = await register(seller.address, {
        message: "hello",
        signature: await signMessage(seller, "hello"),
        asset: "SOL",
      });
      expect(garbage.status).toBe(401);
    },
  );

  it("accepts seller:any for any seller action", async () => {
    const seller = await fundedSeller();
    await activate(seller, "SOL");
    const message = await challengeFor(seller.address, "seller:any");
    const ok = await register(seller.address, { message, signature: await signMessage(seller, message), asset: "SOL" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const resourceAny = await challengeFor(seller.address, "resource:any");
    const refused = await call(`/sellers/${seller.address}/retire`, {
      method: "POST",
      json: { message: resourceAny, signature: await signMessage(seller, resourceAny) },
    });
    expect(refused.status).toBe(401);
  });
});

describe("seller registration rules", () => {
  it("answers 409 before activation has landed, and the same challenge works once it has", async () => {
    const seller = await fundedSeller();
    const message = await challengeFor(seller.address);
    const signature = await signMessage(seller, message);
    const early = await register(seller.address, { message, signature, asset: "USDC" });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("CONFLICT");

    await activate(seller, "SOL"); // the vault exists, but not its USDC token account
    const halfway = await register(seller.address, { message, signature, asset: "USDC" });
    expect(halfway.status).toBe(409);
    expect(halfway.body.error).toMatch(/token account/);

    await activate(seller, "USDC");
    const done = await register(seller.address, { message, signature, asset: "USDC" });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.provider).toMatchObject({ settlementMode: "spl", splMint: USDC });
  });

  it("keeps one asset per wallet (400), and a retired wallet can start over", async () => {
    const seller = await fundedSeller();
    await activate(seller, "SOL");
    const first = await challengeFor(seller.address);
    expect(
      (await register(seller.address, { message: first, signature: await signMessage(seller, first), asset: "SOL" }))
        .status,
    ).toBe(200);

    const second = await challengeFor(seller.address);
    const otherAsset = await register(seller.address, {
      message: second,
      signature: await signMessage(seller, second),
      asset: "USDC",
    });
    expect(otherAsset.status).toBe(400);
    expect(otherAsset.body.error).toMatch(/^asset: .*one payment asset per merchant wallet/);

    const retire = await challengeFor(seller.address, "seller:retire");
    const retired = await call(`/sellers/${seller.address}/retire`, {
      method: "POST",
      json: { wallet: seller.address, message: retire, signature: await signMessage(seller, retire) },
    });
    expect(retired.status, JSON.stringify(retired.body)).toBe(200);
    expect(retired.body).toMatchObject({ wallet: seller.address, retiredRowCount: 1 });
    expect(retired.body.note).toBeTypeOf("string");
    const preview = await call(`/sellers/${seller.address}/preview`);
    expect(preview.body.lifecycle).toEqual({ previewed: true, activated: true, verified: false, nextStep: "verify" });

    // The unused second challenge now passes the one-asset rule; only activation of USDC is missing.
    const retry = await register(seller.address, {
      message: second,
      signature: await signMessage(seller, second),
      asset: "USDC",
    });
    expect(retry.status).toBe(409);
  });

  it("validates the body (400 naming the field) before any signature work", async () => {
    const seller = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    const message = await challengeFor(seller.address);
    const signature = await signMessage(seller, message);
    const cases: [Record<string, unknown>, RegExp][] = [
      // asset may be omitted (USDC, as pr402), but an empty one is still refused.
      [{ message, signature, asset: "" }, /^asset:/],
      [{ signature, asset: "SOL" }, /^message:/],
      [{ message, signature, asset: "SOL", wallet: other.address }, /^wallet:/],
      [
        { message, signature, asset: "SOL", discovery: { serviceUrl: "ftp://seller.example" } },
        /^discovery\.serviceUrl:/,
      ],
      [
        { message, signature, asset: "SOL", discovery: { serviceUrl: "https://x.example/" + "a".repeat(2048) } },
        /^discovery\.serviceUrl:/,
      ],
      [
        { message, signature, asset: "SOL", discovery: { serviceUrl: "https://user:secret@seller.example" } },
        /^discovery\.serviceUrl:.*credentials/,
      ],
      [{ message, signature, asset: "SOL", discovery: { displayName: "n".repeat(65) } }, /^discovery\.displayName:/],
      [{ message, signature, asset: "SOL", discovery: { description: "d".repeat(281) } }, /^discovery\.description:/],
      [{ message, signature, asset: "SOL", discovery: { tags: ["a", "b", "c", "d", "e", "f"] } }, /^discovery\.tags:/],
      [{ message, signature, asset: "SOL", discovery: { tags: ["Bad Tag"] } }, /^discovery\.tags\.0:/],
      [
        { message, signature, asset: "SOL", discovery: { serviceMetadata: { blob: "x".repeat(4100) } } },
        /^discovery\.serviceMetadata:/,
      ],
      [{ message, signature, asset: "SOL", discovery: { serviceMetadata: [1] } }, /^discovery\.serviceMetadata:/],
    ];
    for (const [body, error] of cases) {
      const response = await register(seller.address, body);
      expect(response.status, JSON.stringify({ ...body, message: undefined, signature: undefined }).slice(0, 200)).toBe(
        400,
      );
      expect(response.body.error).toMatch(error);
    }
    expect((await register("nope", { message, signature, asset: "SOL" })).body.error).toMatch(/^wallet:/);
  });
});

describe("provider directory", () => {
  it("lists only verified, opted-in, unretired providers, newest first, with cursor paging", async () => {
    const wallets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const seller = await fundedSeller();
      await activate(seller, "SOL");
      const message = await challengeFor(seller.address);
      const listingOptIn = i !== 1;
      const response = await register(seller.address, {
        message,
        signature: await signMessage(seller, message),
        asset: "SOL",
        discovery: { serviceUrl: `https://seller-${i}.example`, listingOptIn },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      wallets.push(seller.address);
      await new Promise((resolve) => setTimeout(resolve, 5)); // distinct updatedAt
    }
    expect((await call(`/providers/${wallets[1]}`)).status).toBe(404);

    const first = await call("/providers?limit=1");
    expect(first.status).toBe(200);
    expect(first.body.entries.map((e: { walletPubkey: string }) => e.walletPubkey)).toEqual([wallets[2]]);
    expect(first.body.notice).toBeTypeOf("string");
    // The cursor is the last entry's updatedAt with its wallet as tie-breaker (rows may share a millisecond).
    expect(first.body.nextCursor).toBe(`${first.body.entries[0].updatedAt}~${wallets[2]}`);
    const second = await call(`/providers?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.entries.map((e: { walletPubkey: string }) => e.walletPubkey)).toEqual([wallets[0]]);

    const clamped = await call("/providers?limit=500");
    expect(clamped.status).toBe(200);
    expect((await call("/providers?cursor=yesterday")).status).toBe(400);
    expect((await call("/providers?limit=ten")).body.error).toMatch(/^limit:/);
  });
});

describe("seller payment history", () => {
  it("returns the wallet's attempts, newest first, behind a seller:payments challenge", async () => {
    const seller = await generateKeyPairSigner();
    // the SOL minimum payment: enrich refuses less
    const line = await enrichedLine(NATIVE_SOL, "100000", seller.address);
    // A settle attempt that parsed is part of the seller's history even when it fails (a /verify writes no row).
    const invalid = await call("/settle", {
      method: "POST",
      json: {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: line, payload: { transaction: "AAAA" } },
        paymentRequirements: line,
      },
    });
    expect(invalid.status).toBeLessThan(500);

    let entries: { merchantWallet: string; kind: string }[] = [];
    for (let attempt = 0; attempt < 20 && entries.length === 0; attempt++) {
      const message = await challengeFor(seller.address, "seller:payments");
      const page = await call("/seller/payments", {
        method: "POST",
        json: { wallet: seller.address, message, signature: await signMessage(seller, message), limit: 10 },
      });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.wallet).toBe(seller.address);
      entries = page.body.entries;
      if (entries.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(entries.length).toBeGreaterThan(0);
    expect(entries[0]).toMatchObject({ kind: "settle", merchantWallet: seller.address });

    const wrong = await challengeFor(seller.address, "seller:register");
    const refused = await call("/seller/payments", {
      method: "POST",
      json: { wallet: seller.address, message: wrong, signature: await signMessage(seller, wrong) },
    });
    expect(refused.status).toBe(401);
  });
});
