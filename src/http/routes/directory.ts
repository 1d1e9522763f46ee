import type { RouteDef } from "../route-def";
import { parsePathParams, parseQuery } from "../parse-input";
import { WalletPathSchema } from "../../sellers/seller-inputs";
import { getListedProviderEntry, listProviders, ProvidersQuerySchema } from "../../providers/provider-directory";
import { ProviderSingleResponseSchema, ProvidersPageResponseSchema } from "../responses/schemas";

/** The public provider directory (docs/facilitator-spec.md §4.4): verified, opted-in sellers. */
export function directoryRoutes(): RouteDef[] {
  return [
    {
      key: "providers",
      method: "GET",
      path: "/providers",
      tag: "Directory",
      summary: "Verified, opted-in providers (merchant origins), newest first; ?limit=1..100 (50), ?cursor=<last updatedAt>",
      query: ProvidersQuerySchema,
      response: ProvidersPageResponseSchema,
      handler: async (c) => c.json(await listProviders(c.env.DB, parseQuery(c, ProvidersQuerySchema))),
    },
    {
      key: "providerByWallet",
      method: "GET",
      path: "/providers/:wallet",
      tag: "Directory",
      summary: "One listed provider as {entry, notice} (its members also at the top level); 404 when not publicly listed",
      response: ProviderSingleResponseSchema,
      handler: async (c) => {
        const { wallet } = parsePathParams(c, WalletPathSchema);
        return c.json(await getListedProviderEntry(c.env.DB, wallet));
      },
    },
  ];
}
