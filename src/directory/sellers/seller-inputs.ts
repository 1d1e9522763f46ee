import * as v from "valibot";

/** The rails a seller preview lists (each has a per-seller payTo: a vault or an escrow). */
export const SELLER_PREVIEW_SCHEMES = ["exact", "sla-escrow"] as const;

import { Base58Address } from "../../x402/schemas";

/** Request shapes of the seller routes, validated at the edge (400 naming the field). */

export const WalletPathSchema = v.object({ wallet: Base58Address });

export const RailPathSchema = v.object({ wallet: Base58Address, scheme: v.string() });

export const RailQuerySchema = v.object({ asset: v.optional(v.string()) });
