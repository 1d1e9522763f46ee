import type { KeyPairSigner } from "@solana/kit";
import { expect, inject } from "vitest";
import { signAndSend } from "./chain";
import { createUsdcAccount } from "./payment-fixtures";
import { fundedSeller, signMessage } from "./seller-fixtures";
import { call } from "./worker-http";

/** The real loopback seller started by test/global-setup.ts. */
export function sellerOrigin(): string {
  return inject("directorySellerOrigin");
}

/** Sets how the loopback seller answers on `path` (see test/support/node/directory-seller.ts). */
export async function setSellerBehaviour(body: {
  path?: string;
  mode?: string;
  bazaar?: unknown;
  manifest?: unknown;
  proveWallet?: string;
  unproveWallet?: string;
}): Promise<void> {
  const response = await fetch(`${sellerOrigin()}/__control`, { method: "POST", body: JSON.stringify(body) });
  expect(response.status).toBe(204);
}

/** What the loopback seller received on `path`: method, User-Agent, body bytes and Content-Length of each request. */
export async function requestsSeenBySeller(
  path: string,
): Promise<{ method: string; userAgent: string | null; bodyBytes: number; contentLength: string | null }[]> {
  return (await fetch(`${sellerOrigin()}/__requests?path=${encodeURIComponent(path)}`)).json();
}

/**
 * A seller that went through the real onboarding (activation on the local chain, signed registration). On the loopback
 * seller's origin it also proves the origin (the manifest names the wallet) unless `proveOrigin` is false. With
 * `payToForm: "wallet"` it is paid at its own wallet instead: it creates its USDC token account, no vault.
 */
export async function verifiedMerchant(
  serviceUrl: string,
  { proveOrigin = true, payToForm = "vault" as "vault" | "wallet" } = {},
): Promise<KeyPairSigner> {
  const seller = await fundedSeller();
  if (payToForm === "wallet") {
    await createUsdcAccount(seller.address, seller);
  } else {
    const built = await call("/sellers/provision-tx", {
      method: "POST",
      json: { wallet: seller.address, asset: "USDC" },
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    await signAndSend(built.body.transaction, [seller]);
  }
  const terms = {
    asset: "USDC",
    discovery: { serviceUrl, listingOptIn: true },
    ...(payToForm === "wallet" ? { payToForm } : {}),
  };
  // The vault (default) form signs a plain challenge, as pr402's clients do; the wallet form needs one issued for its
  // terms.
  const challenge =
    payToForm === "wallet"
      ? await call(`/sellers/${seller.address}/register/challenge`, { method: "POST", json: terms })
      : await call(`/sellers/${seller.address}/challenge?action=seller:register`);
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  const registered = await call(`/sellers/${seller.address}/register`, {
    method: "POST",
    json: { message: challenge.body.message, signature: await signMessage(seller, challenge.body.message), ...terms },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  if (proveOrigin && new URL(serviceUrl).origin === sellerOrigin())
    await setSellerBehaviour({ proveWallet: seller.address });
  return seller;
}

/** A fresh signed challenge for a resource action. */
export async function signedResourceChallenge(seller: KeyPairSigner, action: string) {
  const challenge =
    action === "resource:list"
      ? await call(`/sellers/${seller.address}/challenge?action=resource:list`)
      : await call(`/resources/register/challenge?wallet=${seller.address}&action=${action}`);
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  return {
    wallet: seller.address,
    message: challenge.body.message as string,
    signature: await signMessage(seller, challenge.body.message),
  };
}
