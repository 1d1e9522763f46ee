import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { fetchAccounts } from "../../chain/accounts";
import { deriveBankPda, deriveEscrowAddresses, deriveExactAddresses } from "./seller-addresses";
import { escrowAssetView, escrowRailView, exactRailView, type EscrowAssetView, type EscrowRailView, type ExactRailView } from "./rail-views";
import { resolveSellerAsset, type SellerAsset } from "./seller-asset";
import { badRequest } from "../../platform/errors/catalogue";
import { railNotEnabled } from "../../platform/config/rail-switches";
import { normalizeScheme } from "../../rails/registry";

/**
 * `GET /sellers/{wallet}/rails/{scheme}` (docs/facilitator-spec.md §4.3): the one canonical payTo of a rail, with its on-chain
 * state from one batched read. Deliberately no database: this is what a seller's server calls to fill `payTo`.
 */
export async function lookupExactRail(config: Config, wallet: Address): Promise<ExactRailView> {
  // Like upto, the wallet payTo form has no per-seller rail address: where it is the only exact form, say so.
  const { exactVault, exactWallet } = config.rails;
  if (!exactVault.enabled && exactWallet.enabled) {
    throw railNotEnabled(
      "exact (vault payTo)",
      `${exactVault.why}; exact here pays the seller's own wallet, so payTo is ${wallet} itself (no rail address to look up): GET /sellers/${wallet}/preview shows the line to publish`,
      { payToForms: ["wallet"] },
    );
  }
  const addresses = await deriveExactAddresses(config, wallet);
  const accounts = await fetchAccounts(config, [addresses.vaultPda, addresses.configPda]);
  return exactRailView(wallet, addresses, accounts);
}

export async function lookupEscrowRail(
  config: Config,
  wallet: Address,
  asset: SellerAsset,
): Promise<EscrowRailView & { asset: string; assetMint: Address; escrow: EscrowAssetView }> {
  const bankPda = await deriveBankPda(config);
  const addresses = await deriveEscrowAddresses(config, bankPda, asset.isNativeSol ? "SOL" : asset.label, asset.mint);
  const accounts = await fetchAccounts(config, [bankPda, addresses.escrowPda]);
  const escrow = escrowAssetView(addresses, config.programs.slaEscrow, accounts);
  return {
    ...escrowRailView(wallet, config.programs.slaEscrow, bankPda, escrow, accounts),
    asset: asset.label,
    assetMint: addresses.mint,
    escrow,
  };
}

/** `GET /sellers/{wallet}/rails/{scheme}`: the rail's lookup (`asset`: which asset's escrow, USDC by default). */
export async function lookupSellerRail(config: Config, wallet: Address, scheme: string, asset: string | undefined) {
  const rail = normalizeScheme(scheme);
  if (rail === null) throw badRequest(`scheme: must be "exact" or "sla-escrow", got "${scheme}"`);
  // An upto channel pays its split to the seller's own wallet: there is no vault or escrow address to look up.
  if (rail === "upto") throw badRequest(`scheme: "upto" has no per-seller rail address; its payTo is the seller's own wallet`);
  if (rail === "exact") return lookupExactRail(config, wallet);
  return lookupEscrowRail(config, wallet, resolveSellerAsset(config, asset ?? "USDC"));
}
