import { type Address, address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import {
  findAssociatedTokenPda,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferInstruction,
} from "@solana-program/token";
import { expect } from "vitest";
import { TOKEN_PROGRAM_ADDRESS } from "../../../src/chain/token-programs";
import { CLUSTERS } from "../../../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../../../src/rails/exact/cluster-defaults";
import { decodeUniversalSettleConfig } from "../../../src/rails/exact/program/accounts";
import { findUniversalSettleConfigPda } from "../../../src/rails/exact/program/pda";
import { signWireTransaction } from "../sign-transaction";
import { chainRpc, sendAs, signAndSend, tokenBalance } from "./chain";
import { call } from "./worker-http";

/** Shared fixtures for payment tests: real sellers activated on the local chain, real enrich and build calls. */

export const DEVNET = CLUSTERS.devnet.network;
export const USDC = address(CLUSTERS.devnet.usdcMint);
export const NATIVE_SOL = address("11111111111111111111111111111111");
export const PROGRAM_ID = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
export const RESOURCE = { url: "https://seller.example/report", mimeType: "application/json" };

/**
 * A new seller that activated its own vault for `asset` through /sellers/provision-tx (signed and paid by the
 * seller, as the seller guide says), so that payments to it need no just-in-time provisioning.
 */
export async function activatedSeller(asset: Address): Promise<Address> {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  const built = await call("/sellers/provision-tx", {
    method: "POST",
    json: { wallet: seller.address, asset: asset === NATIVE_SOL ? "SOL" : asset },
    headers: { "CF-Connecting-IP": `seller-${crypto.randomUUID()}` },
  });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  await signAndSend(built.body.transaction, [seller]);
  return seller.address;
}

/** A seller's `accepts[]` line as /payment-required/enrich produces it (by default a new, activated seller). */
export async function enrichedLine(asset: Address, amount: string, seller?: Address): Promise<Record<string, any>> {
  const wallet = seller ?? (await activatedSeller(asset));
  const response = await call("/payment-required/enrich", {
    method: "POST",
    json: {
      x402Version: 2,
      resource: RESOURCE,
      accepts: [{ scheme: "exact", network: DEVNET, asset, amount, payTo: wallet, maxTimeoutSeconds: 60 }],
    },
  });
  expect(response.status).toBe(200);
  return response.body.accepts[0];
}

let clientCounter = 0;

/** Builds through /build-exact-payment-tx, signs as the buyer, and returns the filled verify/settle body. */
export async function signedPaymentBody(buyer: KeyPairSigner, line: Record<string, any>): Promise<Record<string, any>> {
  const built = await call("/build-exact-payment-tx", {
    method: "POST",
    json: { payer: buyer.address, accepted: line, resource: RESOURCE },
    headers: { "CF-Connecting-IP": `10.9.${Math.floor(clientCounter / 250)}.${clientCounter++ % 250}` },
  });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  const template = built.body.verifyBodyTemplate;
  template.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
  return template;
}

/** The buyer's signature added to a built payment (the fee payer's slot stays empty), as a client sends it. */
export async function signAsBuyer(base64: string, buyer: KeyPairSigner): Promise<string> {
  return signWireTransaction(base64, [buyer]);
}

export async function usdcAccountOf(owner: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
}

/** Creates `owner`'s USDC token account, paid by `payer` (any wallet can: docs/sweeps.md). */
export async function createUsdcAccount(owner: Address, payer: KeyPairSigner): Promise<Address> {
  const ata = await usdcAccountOf(owner);
  await sendAs(payer, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer,
      ata,
      owner,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    }),
  ]);
  return ata;
}

/** The owner empties its USDC token account into `sink` and closes it: the rent goes back to the owner. */
export async function drainAndCloseUsdcAccount(owner: KeyPairSigner, sink: Address): Promise<void> {
  const ata = await usdcAccountOf(owner.address);
  const amount = await tokenBalance(ata);
  await sendAs(owner, [
    ...(amount > 0n ? [getTransferInstruction({ source: ata, destination: sink, authority: owner, amount })] : []),
    getCloseAccountInstruction({ account: ata, destination: owner.address, owner }),
  ]);
}

/** The operator's fee wallet that sweeps pay into, as the local chain's UniversalSettle Config names it. */
export async function feeDestination(): Promise<Address> {
  const [configPda] = await findUniversalSettleConfigPda(PROGRAM_ID);
  const info = await chainRpc<{ value: { data: [string, string] } }>("getAccountInfo", [
    configPda,
    { encoding: "base64" },
  ]);
  return decodeUniversalSettleConfig(Uint8Array.from(atob(info.value.data[0]), (c) => c.charCodeAt(0)))!.feeDestination;
}
