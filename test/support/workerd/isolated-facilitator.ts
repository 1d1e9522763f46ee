import { address } from "@solana/kit";
import { expect } from "vitest";
import { labelledKeypair } from "../../../scripts/lib/keypair";
import { chainRpc, type fundedBuyer } from "./chain";
import { activatedSeller, DEVNET, signAsBuyer } from "./payment-fixtures";
import { callWithEnv } from "./worker-http";

type Buyer = Awaited<ReturnType<typeof fundedBuyer>>;

/**
 * The Worker with a fee payer of its own (and any other bindings overridden), so that the fee payer's lamports
 * move only by what one test makes the facilitator do, however many test files settle at the same time.
 */
export async function isolatedFacilitator(
  label: string,
  extraEnv: Record<string, unknown> = {},
  feePayerLamports = 5_000_000_000,
) {
  const feePayer = labelledKeypair(`${label}/${crypto.randomUUID()}`);
  if (feePayerLamports > 0) await chainRpc("requestAirdrop", [feePayer.address, feePayerLamports]);
  const env: Record<string, unknown> = { FEE_PAYER_SECRET_KEY: feePayer.secretKeyBase58, ...extraEnv };
  /**
   * A POST as the Worker receives it; `colo`: as the Worker at that Cloudflare location does (`request.cf.colo`, which
   * only Cloudflare sets).
   */
  const postFrom = (colo: string | undefined, path: string, json: unknown, headers: Record<string, string> = {}) =>
    callWithEnv(env, path, {
      method: "POST",
      body: JSON.stringify(json),
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID(), ...headers },
      ...(colo === undefined ? {} : { cf: { colo } }),
    } as RequestInit);
  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    postFrom(undefined, path, json, headers);
  const postAt = (colo: string, path: string, json: unknown, headers: Record<string, string> = {}) =>
    postFrom(colo, path, json, headers);
  const line = async (asset: string, amount: string, seller?: string) => {
    const enriched = await post("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/paid" },
      accepts: [
        {
          scheme: "exact",
          network: DEVNET,
          asset,
          amount,
          payTo: seller ?? (await activatedSeller(address(asset))),
          maxTimeoutSeconds: 60,
        },
      ],
    });
    expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
    return enriched.body.accepts[0] as Record<string, any>;
  };
  const signedBody = async (buyer: Buyer, accepted: Record<string, any>) => {
    const built = await post("/build-exact-payment-tx", { payer: buyer.address, accepted });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    const body = built.body.verifyBodyTemplate;
    body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
    return body;
  };
  /** Changes bindings for the calls that follow (e.g. point the RPC elsewhere, wrap D1). */
  const setEnv = (overrides: Record<string, unknown>) => Object.assign(env, overrides);
  return { feePayer: address(feePayer.address), feePayerKey: feePayer, env, post, postAt, line, signedBody, setEnv };
}
