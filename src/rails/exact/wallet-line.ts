import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";

/**
 * An `exact` line in its wallet `payTo` form (SVC_EXACT_WALLET_PAYTO; ./pay-to-form.ts): `payTo` is the seller's own
 * wallet and `extra` carries only what a buyer needs from this facilitator (the fee payer and the compute caps, as the
 * exact kind of `/supported` has them). No `merchantWallet`: with it the line would name a vault.
 */
export function walletLineExtra(config: Config): {
  feePayer: Address;
  maxComputeUnitLimit: string;
  recommendedComputeUnitPrice: string;
} {
  return {
    feePayer: config.feePayer.address,
    maxComputeUnitLimit: String(config.compute.maxUnitLimit),
    recommendedComputeUnitPrice: String(config.compute.recommendedUnitPriceMicroLamports),
  };
}

/** How long a line built here lets the buyer take (the builders' blockhash lifetime). */
const LINE_MAX_TIMEOUT_SECONDS = 60;

/** The line a seller puts in its 402 body to be paid `amount` of `asset` into its own wallet. */
export function walletPayToLine(config: Config, wallet: Address, asset: Address, amount: bigint) {
  return {
    scheme: "exact" as const,
    network: config.network,
    payTo: wallet,
    asset,
    amount: amount.toString(),
    maxTimeoutSeconds: LINE_MAX_TIMEOUT_SECONDS,
    extra: walletLineExtra(config),
  };
}
