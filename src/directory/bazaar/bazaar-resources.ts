import * as v from "valibot";
import type { ResourceRow } from "../../store/resources";
import { parseJson } from "../resources/resource-entry";
import { listedResourcesPage } from "../resources/resource-search";

/**
 * Deepest `offset` served: D1 reads (and bills) every skipped row of an OFFSET, so a deeper page is a 400 rather than a
 * scan of the directory. 10,000 is the size of /dist/resource-index.json, which has the whole directory in one read.
 */
export const MAX_BAZAAR_OFFSET = 10_000;

/** `GET /discovery/resources` query (x402 v2 Bazaar: type, limit, offset). */
export const BazaarQuerySchema = v.object({
  type: v.optional(v.string()),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,6}$/, "must be a whole number"), v.transform(Number))),
  offset: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,9}$/, "must be a whole number"),
      v.transform(Number),
      v.maxValue(
        MAX_BAZAAR_OFFSET,
        `must be at most ${MAX_BAZAAR_OFFSET} (the whole directory is at /dist/resource-index.json)`,
      ),
    ),
  ),
});

export interface BazaarItem {
  resource: string;
  type: "http";
  x402Version: 2;
  accepts: unknown[];
  lastUpdated: string;
  metadata: Record<string, unknown>;
}

/** One listed resource as a Bazaar discovery item; `accepts` are the lines of its last passing 402. */
export function toBazaarItem(row: ResourceRow): BazaarItem {
  const bazaar = parseJson<unknown>(row.probeBazaarJson);
  return {
    resource: row.resourceUrl,
    type: "http",
    x402Version: 2,
    accepts: parseJson<unknown[]>(row.probeAcceptsJson) ?? [],
    lastUpdated: new Date(row.lastProbeOkAtMs ?? row.updatedAtMs).toISOString(),
    metadata: {
      id: row.id,
      title: row.title,
      ...(row.description ? { description: row.description } : {}),
      ...(row.category ? { category: row.category } : {}),
      tags: parseJson<string[]>(row.tagsJson) ?? [],
      httpMethod: row.httpMethod,
      walletPubkey: row.walletPubkey,
      ...(bazaar !== null ? { bazaar } : {}),
    },
  };
}

/** The x402 v2 Bazaar listing over exactly the publicly listed resources (all of type "http"). */
export async function bazaarResources(db: D1Database, query: v.InferOutput<typeof BazaarQuerySchema>) {
  const limit = Math.min(100, Math.max(1, query.limit ?? 20));
  const offset = query.offset ?? 0;
  if (query.type !== undefined && query.type !== "http") {
    return { x402Version: 2, items: [] as BazaarItem[], pagination: { limit, offset, total: 0 } };
  }
  const { rows, total } = await listedResourcesPage(db, limit, offset);
  return { x402Version: 2, items: rows.map(toBazaarItem), pagination: { limit, offset, total } };
}
