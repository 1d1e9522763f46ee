import * as v from "valibot";
import { badRequest, notFound } from "../../platform/errors/catalogue";
import { formatPageCursor, parsePageCursor } from "../../platform/paging/page-cursor";
import { clampPageLimit } from "../../platform/paging/page-limit";
import { type ResourceRow, rawToResourceRow } from "../../store/resources";
import { LISTED_SCHEMES } from "./listed-schemes";
import { queryWords, rankedSearch } from "./ranked-search";
import { type ResourceEntry, toResourceEntry } from "./resource-entry";

export const ResourcesQuerySchema = v.object({
  q: v.optional(v.pipe(v.string(), v.maxLength(200, "must be at most 200 characters"))),
  category: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -"))),
  scheme: v.optional(v.picklist(LISTED_SCHEMES, 'must be "exact" or "sla-escrow"')),
  tag: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -"))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^-?\d{1,6}$/, "must be an integer"), v.transform(Number))),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(120, "is not a cursor of this API"))),
});
export type ResourcesQuery = v.InferOutput<typeof ResourcesQuerySchema>;

export const RESOURCES_NOTICE =
  "Resources of verified sellers whose URL answered the facilitator's last 402 probe. Search metadata is advisory; " +
  "pricing authority is each resource's live HTTP 402.";

/**
 * docs/facilitator-spec.md §3.3: all four gates (verified merchant not retired, signed registration, opted in and live,
 * passing probe), as the `visible` column that triggers keep from `listed` and `providers` (0005_search_rank.sql).
 */
export const LISTED = "r.visible = 1";

/**
 * Where the unranked list starts, so rows come out already in (updatedAt, id) order: the tag rows of a tag
 * filter, else the index of the category or scheme filter, else the visible rows.
 */
function listSource(query: ResourcesQuery): { from: string; order: [updatedAt: string, id: string] } {
  if (query.tag !== undefined)
    return {
      from: "resource_tags t CROSS JOIN resources r ON r.id = t.resource_id",
      order: ["t.updated_at_ms", "t.resource_id"],
    };
  const index =
    query.category !== undefined
      ? "resources_visible_category_idx"
      : query.scheme !== undefined
        ? "resources_visible_scheme_idx"
        : "resources_visible_cursor_idx";
  return { from: `resources r INDEXED BY ${index}`, order: ["r.updated_at_ms", "r.id"] };
}

/** The exact filters as conditions on `r` (the tag one as given: it depends on the query's source). */
function exactFilters(query: ResourcesQuery, tagCondition: string): { sql: string[]; binds: unknown[] } {
  const sql: string[] = [];
  const binds: unknown[] = [];
  if (query.category !== undefined) {
    sql.push("r.category = ?");
    binds.push(query.category);
  }
  if (query.scheme !== undefined) {
    sql.push("r.scheme = ?");
    binds.push(query.scheme);
  }
  if (query.tag !== undefined) {
    sql.push(tagCondition);
    binds.push(query.tag);
  }
  return { sql, binds };
}

/**
 * `GET /resources`: without `q`, newest first with an (updatedAt, id) cursor; with `q`, full-text matches ranked
 * in bounded windows (see ranked-search.ts) with a window position cursor. Filters are exact.
 */
export async function searchResources(
  db: D1Database,
  query: ResourcesQuery,
): Promise<{ entries: ResourceEntry[]; nextCursor: string | null; notice: string }> {
  const limit = clampPageLimit(query.limit);
  if (query.q !== undefined && query.q.trim() !== "") {
    const words = queryWords(query.q);
    if (words.length === 0) throw badRequest("q: must contain at least one letter or digit");
    // A window holds at most RANK_WINDOW rows, so json_each on them is cheap.
    const { sql, binds } = exactFilters(query, "EXISTS (SELECT 1 FROM json_each(r.tags_json) j WHERE j.value = ?)");
    const { raws, nextCursor } = await rankedSearch(db, words, query, sql, binds, limit, query.cursor);
    return { entries: raws.map((raw) => toResourceEntry(rawToResourceRow(raw))), nextCursor, notice: RESOURCES_NOTICE };
  }

  const { sql: filters, binds } = exactFilters(query, "t.tag = ?");
  const { from, order } = listSource(query);
  if (query.cursor !== undefined) {
    const position = parsePageCursor(query.cursor, /^\d{1,15}$/);
    if (position.tieBreaker === undefined) {
      filters.push(`${order[0]} < ?`);
      binds.push(position.updatedAtMs);
    } else {
      // A row value comparison, so SQLite seeks the index to the cursor instead of filtering row by row.
      filters.push(`(${order[0]}, ${order[1]}) < (?, ?)`);
      binds.push(position.updatedAtMs, Number(position.tieBreaker));
    }
  }
  const result = await db
    .prepare(
      `SELECT r.* ` +
        `FROM ${from} WHERE ${[LISTED, ...filters].join(" AND ")} ORDER BY ${order[0]} DESC, ${order[1]} DESC LIMIT ?`,
    )
    .bind(...binds, limit)
    .all<Record<string, unknown>>();
  const rows = result.results.map(rawToResourceRow);
  const last = rows[rows.length - 1];
  return {
    entries: rows.map(toResourceEntry),
    nextCursor: rows.length === limit && last ? formatPageCursor(last.updatedAtMs, last.id) : null,
    notice: RESOURCES_NOTICE,
  };
}

async function listedRows(db: D1Database, whereAndOrder: string, binds: unknown[]): Promise<ResourceRow[]> {
  const result = await db
    .prepare(`SELECT r.* FROM resources r WHERE ${whereAndOrder}`)
    .bind(...binds)
    .all<Record<string, unknown>>();
  return result.results.map(rawToResourceRow);
}

/** The number of listed resources, from the counters the triggers keep (no scan). */
const VISIBLE_TOTAL = "SELECT coalesce(sum(visible_resources), 0) AS total FROM directory_counts";

/** Listed resources by offset (the Bazaar API pages by offset) and their total. */
export async function listedResourcesPage(
  db: D1Database,
  limit: number,
  offset: number,
): Promise<{ rows: ResourceRow[]; total: number }> {
  const [page, count] = await db.batch<Record<string, unknown>>([
    db
      .prepare(`SELECT r.* FROM resources r WHERE ${LISTED} ORDER BY r.updated_at_ms DESC, r.id DESC LIMIT ? OFFSET ?`)
      .bind(limit, offset),
    db.prepare(VISIBLE_TOTAL),
  ]);
  return { rows: page!.results.map(rawToResourceRow), total: Number(count!.results[0]?.total ?? 0) };
}

/** `GET /resources/{id}`: 404 unless every listing gate holds. */
/**
 * `{entry, notice}` as pr402's PublicResourceSingle, with the entry's fields also at the top level for our earlier
 * clients.
 */
export async function getListedResource(
  db: D1Database,
  id: number,
): Promise<ResourceEntry & { entry: ResourceEntry; notice: string }> {
  const rows = await listedRows(db, `r.id = ? AND ${LISTED}`, [id]);
  if (rows.length === 0) throw notFound(`Resource ${id} is not listed`);
  const entry = toResourceEntry(rows[0]!);
  return { ...entry, entry, notice: RESOURCES_NOTICE };
}

/** `GET /directory/stats` (docs/facilitator-spec.md §2.7), counting only what the lists show. */
export async function directoryStats(
  db: D1Database,
  network: string,
): Promise<{
  network: string;
  providers: { total: number };
  resources: { total: number; byScheme: Record<string, number> };
  asOf: string;
}> {
  const [providers, schemes] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT count(*) AS total FROM providers WHERE retired_at_ms IS NULL AND listing_opt_in = 1"),
    db.prepare("SELECT scheme, visible_resources AS total FROM directory_counts WHERE visible_resources > 0"),
  ]);
  const byScheme: Record<string, number> = {};
  let total = 0;
  for (const row of schemes!.results) {
    byScheme[String(row.scheme)] = Number(row.total);
    total += Number(row.total);
  }
  return {
    network,
    providers: { total: Number(providers!.results[0]?.total ?? 0) },
    resources: { total, byScheme },
    asOf: new Date().toISOString(),
  };
}
