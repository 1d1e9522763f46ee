import * as v from "valibot";
import { badRequest } from "../../platform/errors/catalogue";
import { clampPageLimit } from "../../platform/paging/page-limit";
import type { RailModule } from "../../rails/rail";
import { railsBySchemeOf } from "../../rails/registry";
import { rawToResourceRow } from "../../store/resources";
import { normalizeSchemeAmong } from "../../x402/scheme-names";
import { queryWords, rankedSearch } from "../resources/ranked-search";
import { type BazaarItem, toBazaarItem } from "./bazaar-resources";

/**
 * `GET /discovery/search` (x402 v2 Bazaar, `@x402/extensions` 2.27 `client.extensions.bazaar.search`): the natural
 * language query over the same ranked full-text search as `GET /resources?q=` (ranked-search.ts), restricted to
 * the listed resources, with the client's exact filters and the ranked search's cursor.
 */
export const BazaarSearchQuerySchema = v.object({
  query: v.pipe(v.string("is required"), v.maxLength(200, "must be at most 200 characters")),
  type: v.optional(v.string()),
  payTo: v.optional(v.pipe(v.string(), v.maxLength(64, "must be an address"))),
  scheme: v.optional(v.pipe(v.string(), v.maxLength(32, "must be a scheme name"))),
  network: v.optional(v.pipe(v.string(), v.maxLength(80, "must be a CAIP-2 network id"))),
  extensions: v.optional(v.pipe(v.string(), v.maxLength(64, "must be an extension key"))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^-?\d{1,6}$/, "must be an integer"), v.transform(Number))),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(120, "is not a cursor of this API"))),
});
export type BazaarSearchQuery = v.InferOutput<typeof BazaarSearchQuerySchema>;

/** A search hit in the Bazaar `DiscoveryResource` shape (plus this directory's `metadata`). */
export interface BazaarSearchItem extends BazaarItem {
  description?: string;
  extensions?: Record<string, unknown>;
}

export interface BazaarSearchResponse {
  x402Version: 2;
  resources: BazaarSearchItem[];
  partialResults: false;
  pagination: { limit: number; cursor: string | null };
}

/** Extension keys a listed resource can carry here (its probed 402's `extensions.bazaar`). */
const SEARCHABLE_EXTENSIONS = new Set(["bazaar"]);

/** `rails`: the app's; a `scheme` filter resolves its aliases among them. */
export async function bazaarSearch(
  db: D1Database,
  query: BazaarSearchQuery,
  rails: readonly RailModule[],
): Promise<BazaarSearchResponse> {
  const limit = clampPageLimit(query.limit);
  const words = queryWords(query.query);
  if (words.length === 0) throw badRequest("query: must contain at least one letter or digit");
  const none: BazaarSearchResponse = {
    x402Version: 2,
    resources: [],
    partialResults: false,
    pagination: { limit, cursor: null },
  };

  // Every listed resource is an http resource; a scheme or extension nothing here can have matches nothing.
  if (query.type !== undefined && query.type !== "http") return none;
  const scheme = query.scheme === undefined ? undefined : normalizeSchemeAmong(query.scheme, railsBySchemeOf(rails));
  if (scheme === null) return none;
  if (query.extensions !== undefined && !SEARCHABLE_EXTENSIONS.has(query.extensions)) return none;

  // Exact conditions on the probed 402 (json_each over at most one ranked window's rows, see ranked-search.ts).
  const sql: string[] = [];
  const binds: unknown[] = [];
  if (scheme !== undefined) {
    sql.push("r.scheme = ?");
    binds.push(scheme);
  }
  for (const [field, value] of [
    ["$.payTo", query.payTo],
    ["$.network", query.network],
  ] as const) {
    if (value === undefined) continue;
    sql.push(`EXISTS (SELECT 1 FROM json_each(r.probe_accepts_json) a WHERE json_extract(a.value, '${field}') = ?)`);
    binds.push(value);
  }
  if (query.extensions !== undefined) sql.push("r.probe_bazaar_json IS NOT NULL");

  const { raws, nextCursor } = await rankedSearch(
    db,
    words,
    scheme === undefined ? {} : { scheme },
    sql,
    binds,
    limit,
    query.cursor,
  );
  const resources = raws.map((raw) => {
    const item: BazaarSearchItem = toBazaarItem(rawToResourceRow(raw));
    const { description, bazaar } = item.metadata as { description?: string; bazaar?: unknown };
    if (description !== undefined) item.description = description;
    if (bazaar !== undefined) item.extensions = { bazaar };
    return item;
  });
  return { x402Version: 2, resources, partialResults: false, pagination: { limit, cursor: nextCursor } };
}
