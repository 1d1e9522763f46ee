import {
  getListedProviderEntry,
  listProviders,
  ProvidersQuerySchema,
} from "../../directory/providers/provider-directory";
import { WalletPathSchema } from "../../directory/sellers/seller-inputs";
import { type RouteDef, route } from "../route-def";
import { ProviderSingleResponseSchema, ProvidersPageResponseSchema } from "./providers-responses";

/** `/providers`: the public provider directory (docs/facilitator-spec.md §4.4), verified, opted-in sellers. */
export function providerRoutes(): RouteDef[] {
  return [
    route({
      key: "providers",
      method: "GET",
      path: "/providers",
      tag: "Directory",
      summary:
        "Verified, opted-in providers (merchant origins), newest first; ?limit=1..100 (50), ?cursor=<last updatedAt>",
      query: ProvidersQuerySchema,
      response: ProvidersPageResponseSchema,
      handler: async (c, { query }) => c.json(await listProviders(c.env.DB, query)),
    }),
    route({
      key: "providerByWallet",
      reasons: ["not_found"],
      method: "GET",
      path: "/providers/:wallet",
      tag: "Directory",
      summary:
        "One listed provider as {entry, notice} (its members also at the top level); 404 when not publicly listed",
      params: WalletPathSchema,
      response: ProviderSingleResponseSchema,
      handler: async (c, { params }) => c.json(await getListedProviderEntry(c.env.DB, params.wallet)),
    }),
  ];
}
