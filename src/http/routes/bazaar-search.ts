import type { RouteDef } from "../route-def";
import { parseQuery } from "../parse-input";
import { BazaarSearchQuerySchema, bazaarSearch } from "../../bazaar/bazaar-search";

/** `GET /discovery/search`: the x402 v2 Bazaar search (the official client's `extensions.bazaar.search`). */
export function bazaarSearchRoutes(): RouteDef[] {
  return [
    {
      key: "bazaarDiscoverySearch",
      method: "GET",
      path: "/discovery/search",
      tag: "Directory",
      summary: "x402 v2 Bazaar search: ranked full-text search of the listed resources; ?query&type&payTo&scheme&network&extensions&limit&cursor",
      query: BazaarSearchQuerySchema,
      handler: async (c) => c.json(await bazaarSearch(c.env.DB, parseQuery(c, BazaarSearchQuerySchema))),
    },
  ];
}
