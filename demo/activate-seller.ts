import type { KeyPairSigner } from "@solana/kit";
import { signAtIndex } from "./build-endpoint-buyer";
import { chainRpc, signatureStatus } from "./chain-rpc";

/**
 * Seller onboarding as the seller guide describes it: POST /sellers/provision-tx, sign the returned transaction
 * with the seller's wallet (it pays the fee and the rent) and send it. A seller activated this way gets the
 * sovereign fee tier, and its first payment needs no just-in-time provisioning.
 */
export async function activateSellerVault(options: {
  facilitatorApi: string;
  rpcUrl: string;
  seller: KeyPairSigner;
  asset: string;
}): Promise<void> {
  const response = await fetch(`${options.facilitatorApi}/sellers/provision-tx`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ wallet: options.seller.address, asset: options.asset }),
  });
  const body = (await response.json()) as {
    transaction?: string;
    payerSignatureIndex?: number;
    statusCode?: string;
    error?: string;
  };
  if (!response.ok) throw new Error(`provision-tx answered ${response.status}: ${body.error ?? JSON.stringify(body)}`);
  if (!body.transaction) return; // ALREADY_PROVISIONED
  const signed = await signAtIndex(body.transaction, body.payerSignatureIndex ?? 0, options.seller);
  const signature = await chainRpc<string>(options.rpcUrl, "sendTransaction", [signed, { encoding: "base64" }]);
  for (let i = 0; i < 50; i++) {
    const status = await signatureStatus(options.rpcUrl, signature);
    if (status && status.err !== null)
      throw new Error(`the activation transaction failed: ${JSON.stringify(status.err)}`);
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the activation transaction ${signature} was not confirmed in time`);
}
