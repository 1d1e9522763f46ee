import { BazaarQuerySchema, bazaarResources } from "../../directory/bazaar/bazaar-resources";
import { BazaarSearchQuerySchema, bazaarSearch } from "../../directory/bazaar/bazaar-search";
import type { RailModule } from "../../rails/rail";
import { type RouteDef, route } from "../route-def";

/** `/discovery/*`: the x402 v2 Bazaar discovery API (the official client's `extensions.bazaar`). */
export function bazaarRoutes(rails: readonly RailModule[]): RouteDef[] {
  return [
    route({
      key: "bazaarDiscoveryResources",
      method: "GET",
      path: "/discovery/resources",
      tag: "Directory",
      summary: "x402 v2 Bazaar discovery: the listed resources with their probed 402 accepts; ?type=http&limit&offset",
      query: BazaarQuerySchema,
      handler: async (c, { query }) => c.json(await bazaarResources(c.env.DB, query)),
    }),
    route({
      key: "bazaarDiscoverySearch",
      method: "GET",
      path: "/discovery/search",
      tag: "Directory",
      summary:
        "x402 v2 Bazaar search: ranked full-text search of the listed resources; " +
        "?query&type&payTo&scheme&network&extensions&limit&cursor",
      query: BazaarSearchQuerySchema,
      handler: async (c, { query }) => c.json(await bazaarSearch(c.env.DB, query, rails)),
    }),
  ];
}
