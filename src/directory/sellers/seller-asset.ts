import type { Address } from "@solana/kit";
import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { badRequest } from "../../platform/errors/catalogue";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { mintOfSymbol } from "../../x402/asset-symbols";
import { Base58Address } from "../../x402/schemas";

/** A seller's settlement asset as the seller routes name it: "SOL", "USDC", "USDT" or a base58 mint. */
export interface SellerAsset {
  /** "SOL", "USDC", "USDT", or the mint itself for other tokens. */
  label: string;
  /** The all-zero address for native SOL (the allowlist's and SLA-Escrow's name for it), else the mint. */
  mint: Address;
  isNativeSol: boolean;
}

export const SellerAssetInput = v.pipe(
  v.string('must be "SOL", "USDC", "USDT" or a base58 mint'),
  v.trim(),
  v.minLength(1, "must not be empty"),
);

/**
 * Resolves the asset name to a mint; 400 naming `field` when unknown or not on the allowlist (same text as
 * build/verify/settle).
 */
export function resolveSellerAsset(config: Config, input: string, field = "asset"): SellerAsset {
  const asset = symbolOrMint(config, input, field);
  const notAllowed = assetNotAllowedMessage(config, asset.mint);
  if (notAllowed !== null) throw badRequest(notAllowed);
  return asset;
}

function symbolOrMint(config: Config, input: string, field: string): SellerAsset {
  const symbol = input.toUpperCase();
  if (input === NATIVE_SOL_ALLOWLIST_ADDRESS) return symbolOrMint(config, "SOL", field);
  if (symbol === "SOL" || symbol === "USDC" || symbol === "USDT") {
    const mint = mintOfSymbol(config, symbol);
    if (mint === null)
      throw badRequest(`${field}: ${symbol} has no canonical mint on ${config.cluster}; pass the mint address instead`);
    return { label: symbol, mint: mint as Address, isNativeSol: symbol === "SOL" };
  }
  const mint = v.safeParse(Base58Address, input);
  if (!mint.success) throw badRequest(`${field}: must be "SOL", "USDC", "USDT" or a base58 mint address`);
  const label = mint.output === config.mints.usdc ? "USDC" : mint.output === config.mints.usdt ? "USDT" : mint.output;
  return { label, mint: mint.output, isNativeSol: false };
}
