import * as v from "valibot";
import { badRequest, notFound } from "../errors/catalogue";
import { clampPageLimit } from "../sellers/payment-history";
import { formatPageCursor, parsePageCursor } from "./page-cursor";
import { rawToResourceRow, toResourceEntry, type ResourceEntry } from "./resource-entry";
import type { ResourceRow } from "../store/resources";

export const ResourcesQuerySchema = v.object({
  q: v.optional(v.pipe(v.string(), v.maxLength(200, "must be at most 200 characters"))),
  category: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -"))),
  scheme: v.optional(v.picklist(["exact", "sla-escrow"], 'must be "exact" or "sla-escrow"')),
  tag: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -"))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^-?\d{1,6}$/, "must be an integer"), v.transform(Number))),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(120, "is not a cursor of this API"))),
});
export type ResourcesQuery = v.InferOutput<typeof ResourcesQuerySchema>;

export const RESOURCES_NOTICE =
  "Resources of verified sellers whose URL answered the facilitator's last 402 probe. Search metadata is advisory; " +
  "pricing authority is each resource's live HTTP 402.";

/** Spec §3.3: all four gates (verified merchant, signed registration, opted in and live, passing probe). */
export const LISTED = `r.listed = 1 AND EXISTS (SELECT 1 FROM providers p WHERE p.wallet_pubkey = r.wallet_pubkey AND p.retired_at_ms IS NULL)`;

/** Words of the query as an FTS5 expression: each a quoted prefix term, all required (no FTS syntax reaches SQLite). */
export function ftsExpression(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 8) ?? [];
  return words.length === 0 ? null : words.map((w) => `"${w}"*`).join(" ");
}

const RANK_CURSOR = /^rank~(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)~(\d{1,15})$/;

/**
 * `GET /resources`: without `q`, newest first with an (updatedAt, id) cursor; with `q`, FTS5 bm25 relevance
 * first (title weighs most, then tags) with a (score, id) cursor. Filters are exact.
 */
export async function searchResources(db: D1Database, query: ResourcesQuery): Promise<{ entries: ResourceEntry[]; nextCursor: string | null; notice: string }> {
  const limit = clampPageLimit(query.limit);
  const where: string[] = [LISTED];
  const binds: unknown[] = [];
  if (query.category !== undefined) {
    where.push("r.category = ?");
    binds.push(query.category);
  }
  if (query.scheme !== undefined) {
    where.push("r.scheme = ?");
    binds.push(query.scheme);
  }
  if (query.tag !== undefined) {
    where.push("EXISTS (SELECT 1 FROM json_each(r.tags_json) t WHERE t.value = ?)");
    binds.push(query.tag);
  }

  if (query.q !== undefined && query.q.trim() !== "") {
    const expression = ftsExpression(query.q);
    if (expression === null) throw badRequest("q: must contain at least one letter or digit");
    let after = "";
    const afterBinds: unknown[] = [];
    if (query.cursor !== undefined) {
      const match = RANK_CURSOR.exec(query.cursor);
      if (!match) throw badRequest("cursor: must be the nextCursor of the previous page of the same search");
      after = "AND (s.score > ? OR (s.score = ? AND s.id < ?))";
      afterBinds.push(Number(match[1]), Number(match[1]), Number(match[2]));
    }
    const statement = db
      .prepare(
        `SELECT * FROM (
           SELECT r.*, bm25(resources_fts, 8.0, 2.0, 2.0, 4.0) AS score
           FROM resources_fts JOIN resources r ON r.id = resources_fts.rowid
           WHERE resources_fts MATCH ? AND ${where.join(" AND ")}
         ) s WHERE 1 = 1 ${after}
         ORDER BY s.score ASC, s.id DESC LIMIT ?`,
      )
      .bind(expression, ...binds, ...afterBinds, limit);
    const raws = (await statement.all<Record<string, unknown>>()).results;
    const last = raws[raws.length - 1];
    return {
      entries: raws.map((raw) => toResourceEntry(rawToResourceRow(raw))),
      nextCursor: raws.length === limit && last ? `rank~${String(last.score)}~${String(last.id)}` : null,
      notice: RESOURCES_NOTICE,
    };
  }

  if (query.cursor !== undefined) {
    const position = parsePageCursor(query.cursor, /^\d{1,15}$/);
    if (position.tieBreaker === undefined) {
      where.push("r.updated_at_ms < ?");
      binds.push(position.updatedAtMs);
    } else {
      where.push("(r.updated_at_ms < ? OR (r.updated_at_ms = ? AND r.id < ?))");
      binds.push(position.updatedAtMs, position.updatedAtMs, Number(position.tieBreaker));
    }
  }
  const rows = await listedRows(db, `${where.join(" AND ")} ORDER BY r.updated_at_ms DESC, r.id DESC LIMIT ?`, [...binds, limit]);
  const last = rows[rows.length - 1];
  return {
    entries: rows.map(toResourceEntry),
    nextCursor: rows.length === limit && last ? formatPageCursor(last.updatedAtMs, last.id) : null,
    notice: RESOURCES_NOTICE,
  };
}

async function listedRows(db: D1Database, whereAndOrder: string, binds: unknown[]): Promise<ResourceRow[]> {
  const result = await db.prepare(`SELECT r.* FROM resources r WHERE ${whereAndOrder}`).bind(...binds).all<Record<string, unknown>>();
  return result.results.map(rawToResourceRow);
}

/** Listed resources by offset (the Bazaar API pages by offset) and their total. */
export async function listedResourcesPage(db: D1Database, limit: number, offset: number): Promise<{ rows: ResourceRow[]; total: number }> {
  const [page, count] = await db.batch<Record<string, unknown>>([
    db.prepare(`SELECT r.* FROM resources r WHERE ${LISTED} ORDER BY r.updated_at_ms DESC, r.id DESC LIMIT ? OFFSET ?`).bind(limit, offset),
    db.prepare(`SELECT count(*) AS total FROM resources r WHERE ${LISTED}`),
  ]);
  return { rows: page!.results.map(rawToResourceRow), total: Number(count!.results[0]?.total ?? 0) };
}

/** `GET /resources/{id}`: 404 unless every listing gate holds. */
export async function getListedResource(db: D1Database, id: number): Promise<ResourceEntry> {
  const rows = await listedRows(db, `r.id = ? AND ${LISTED}`, [id]);
  if (rows.length === 0) throw notFound(`Resource ${id} is not listed`);
  return toResourceEntry(rows[0]!);
}

/** `GET /directory/stats` (spec §2.7), counting only what the lists show. */
export async function directoryStats(db: D1Database, network: string): Promise<{ network: string; providers: { total: number }; resources: { total: number; byScheme: Record<string, number> }; asOf: string }> {
  const [providers, schemes] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT count(*) AS total FROM providers WHERE retired_at_ms IS NULL AND listing_opt_in = 1"),
    db.prepare(`SELECT r.scheme AS scheme, count(*) AS total FROM resources r WHERE ${LISTED} GROUP BY r.scheme`),
  ]);
  const byScheme: Record<string, number> = {};
  let total = 0;
  for (const row of schemes!.results) {
    byScheme[String(row.scheme)] = Number(row.total);
    total += Number(row.total);
  }
  return { network, providers: { total: Number(providers!.results[0]?.total ?? 0) }, resources: { total, byScheme }, asOf: new Date().toISOString() };
}
