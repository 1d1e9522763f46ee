import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { badRequest } from "../../platform/errors/catalogue";
import type { RailModule } from "../../rails/rail";
import { railsBySchemeOf } from "../../rails/registry";
import { normalizeSchemeAmong, quotedSchemeList } from "../../x402/scheme-names";

/**
 * `GET /sellers/{wallet}/rails/{scheme}` (docs/facilitator-spec.md §4.3): the one canonical payTo of a rail, with its
 * on-chain state from one batched read, as the rail's seller view answers it (`RailModule.seller.lookup`; `asset`:
 * which asset's address, where the rail has one per asset). Deliberately no database: this is what a seller's server
 * calls to fill `payTo`. `rails`: the app's.
 */
export async function lookupSellerRail(
  rails: readonly RailModule[],
  config: Config,
  wallet: Address,
  scheme: string,
  asset: string | undefined,
): Promise<object> {
  const byScheme = railsBySchemeOf(rails);
  const rail = normalizeSchemeAmong(scheme, byScheme);
  const seller = rail === null ? undefined : byScheme.get(rail)?.seller;
  // A rail with no per-seller address (e.g. one paying the seller's own wallet) says why.
  if (rail !== null && seller?.noLookup) throw badRequest(`scheme: "${rail}" ${seller.noLookup}`);
  if (!seller?.lookup) throw badRequest(`scheme: must be ${quotedSchemeList(lookupSchemes(rails))}, got "${scheme}"`);
  return seller.lookup(config, wallet, asset);
}

const lookupSchemes = (rails: readonly RailModule[]) =>
  rails.filter((rail) => rail.seller?.lookup).map((rail) => rail.scheme);
