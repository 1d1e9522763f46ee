import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import type { Config } from "../platform/config/load-config";
import { type ErrorReason, type FacilitatorError, refused } from "../platform/errors/catalogue";
import type { AccountSnapshot } from "./accounts";
import { type MintInfo, parseMint } from "./mint";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "./token-programs";

/**
 * What every buyer-side builder reads about the asset and the buyer's source accounts, whichever rail it builds for.
 */

/** What reading the payment's mint answers itself (the rail's screen adds its own reasons). */
export const PAYMENT_MINT_REASONS = ["asset_not_found"] as const satisfies readonly ErrorReason[];

/**
 * The asset's token program, decimals and extensions; 400 when it is not an acceptable mint. `screen` is the rail's own
 * mint rule (Token-2022 extensions, freeze authority): it answers the refusal with the reason that rail's /verify gives
 * the payment, so a builder never names another rail's reason.
 */
export function readPaymentMint(
  account: AccountSnapshot | null,
  asset: Address,
  screen: (mint: MintInfo) => FacilitatorError | null,
): MintInfo {
  if (account === null)
    throw refused("asset_not_found", `accepted.asset: mint ${asset} does not exist on this network`);
  const mint = parseMint(account);
  if (mint === null)
    throw refused("asset_not_found", `accepted.asset: ${asset} is not an initialized SPL Token or Token-2022 mint`);
  const screened = screen(mint);
  if (screened !== null) throw screened;
  return mint;
}

export async function sourceAtaCandidates(
  owner: Address,
  mint: Address,
): Promise<{ token: Address; token2022: Address }> {
  const [[token], [token2022]] = await Promise.all([
    findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }),
  ]);
  return { token, token2022 };
}

export function assetLabel(config: Config, asset: Address): string {
  if (asset === config.mints.usdc) return "USDC";
  if (config.mints.usdt !== null && asset === config.mints.usdt) return "USDT";
  return `token ${asset}`;
}

/** 16 random bytes as 32 hex characters, like the official x402 client's memo nonce. */
export function randomMemoNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
