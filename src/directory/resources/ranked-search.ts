import { badRequest } from "../../platform/errors/catalogue";

/**
 * Ranked full-text search over FTS5 in bounded windows (why: FTS5's bm25() first scans the whole doclist of
 * every query term to count documents, ~3 ms per common word at 100,000 rows, so no bm25 ordering of a common
 * word can answer in under 10 ms on D1).
 *
 * A window is the RANK_WINDOW most recently registered matches (highest id first; FTS5 walks its doclists in
 * rowid order and stops at the limit). Inside a window rows are ranked by where the query words occur (per
 * word whose text the column contains: title 8, tags 4, description 2, use case 2; a stemmed match such as
 * "forecasting" for "forecast" matches but scores only where the literal word occurs), then by shorter title,
 * then newer id. When a query matches at most RANK_WINDOW resources the ranking is over all of them; beyond
 * that, page after page walks the ranked windows from newest to oldest.
 *
 * The cursor `rank~<top>~<offset>` is a position inside a window: `top` the highest id the window may hold,
 * `offset` the rank inside it. Every match belongs to exactly one window and every window has one total order
 * (ids break ties), so paging has no duplicates or gaps. Rows registered later have higher ids and stay out of
 * windows already being paged; a row that stops matching mid-walk shifts later ranks of its own window by one.
 */
export const RANK_WINDOW = 500;
/** Windows one page may walk (each window is one D1 query); a page ends early, with a cursor, after that. */
const MAX_WINDOWS_PER_PAGE = 4;
const TOP_OF_INDEX = Number.MAX_SAFE_INTEGER;
const RANK_CURSOR = /^rank~(\d{1,16})~(\d{1,4})$/;

/** Column weights of the window ranking, per query word found in that column. */
const COLUMN_WEIGHTS: [column: string, weight: number][] = [
  ["r.title", 8],
  ["r.tags_json", 4],
  ["coalesce(r.description, '')", 2],
  ["coalesce(r.use_case, '')", 2],
];

export interface RankPosition {
  top: number;
  offset: number;
}

export interface ExactFilters {
  category?: string;
  scheme?: string;
  tag?: string;
}

/** Words of `q`: letters and digits only, lower case, at most 8 (no FTS syntax from the caller reaches SQLite). */
export function queryWords(q: string): string[] {
  return (
    q
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, 8) ?? []
  );
}

/**
 * The FTS5 expression: every word a term (see wordTerm) in one of the text columns, and the exact filters as terms of
 * their own columns (so a filtered search never walks rows of other categories; the exact SQL check after it
 * settles stemming and look-alikes such as "a-b" and "azb").
 */
export function ftsExpression(words: string[], filters: ExactFilters): string {
  const parts = [`{title description use_case tags} : (${words.map(wordTerm).join(" ")})`];
  if (filters.category !== undefined) parts.push(`{category} : "${markedToken("zc", filters.category)}"`);
  if (filters.scheme !== undefined) parts.push(`{scheme} : "${markedToken("zs", filters.scheme)}"`);
  if (filters.tag !== undefined) parts.push(`{tags} : "${filters.tag}"`);
  return parts.join(" AND ");
}

/**
 * A word as an FTS5 term: a prefix from two characters on (the prefix indexes cover 2-8), the word itself when
 * it is one character (a one-character prefix walks a large part of the vocabulary: ~100 ms at 100,000 rows).
 */
function wordTerm(word: string): string {
  return [...word].length === 1 ? `"${word}"` : `"${word}"*`;
}

/** The single token 0005_search_rank.sql indexes for a category or scheme value ('-' would split it). */
function markedToken(mark: "zc" | "zs", value: string): string {
  return mark + value.replaceAll("-", "z");
}

export function parseRankCursor(cursor: string): RankPosition {
  const match = RANK_CURSOR.exec(cursor);
  const top = Number(match?.[1]);
  const offset = Number(match?.[2]);
  if (!match || top > TOP_OF_INDEX || offset >= RANK_WINDOW)
    throw badRequest("cursor: must be the nextCursor of the previous page of the same search");
  return { top, offset };
}

export function formatRankCursor(position: RankPosition): string {
  return `rank~${position.top}~${position.offset}`;
}

/** `filterSql` / `filterBinds`: the exact filter conditions on `r` (shared with the unranked list). */
export async function rankedSearch(
  db: D1Database,
  words: string[],
  filters: ExactFilters,
  filterSql: string[],
  filterBinds: unknown[],
  limit: number,
  cursor: string | undefined,
): Promise<{ raws: Record<string, unknown>[]; nextCursor: string | null }> {
  const expression = ftsExpression(words, filters);
  // LIKE: case-insensitive without copying the text (words hold only letters and digits, never % or _).
  const scoreSql = words
    .flatMap(() => COLUMN_WEIGHTS.map(([column, weight]) => `${weight} * (${column} LIKE ?)`))
    .join(" + ");
  const scoreBinds = words.flatMap((word) => COLUMN_WEIGHTS.map(() => `%${word}%`));
  const sql =
    `
    WITH w AS (SELECT rowid AS id FROM resources_fts WHERE resources_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC ` +
    `LIMIT ${RANK_WINDOW}),
    b AS (SELECT count(*) AS window_rows, min(id) AS window_bottom FROM w),
    ranked AS (
      SELECT r.id AS id, ${scoreSql} AS score, length(r.title) AS title_length
      FROM w CROSS JOIN resources r ON r.id = w.id
      WHERE ${["r.visible = 1", ...filterSql].join(" AND ")}),
    page AS (SELECT * FROM ranked ORDER BY score DESC, title_length, id DESC LIMIT ? OFFSET ?)
    SELECT b.window_rows AS window_rows, b.window_bottom AS window_bottom, r.*
    FROM b LEFT JOIN page ON 1 LEFT JOIN resources r ON r.id = page.id
    ORDER BY page.score DESC, page.title_length, page.id DESC`;

  const raws: Record<string, unknown>[] = [];
  const positions: RankPosition[] = [];
  let position: RankPosition | null = cursor === undefined ? { top: TOP_OF_INDEX, offset: 0 } : parseRankCursor(cursor);
  for (let window = 0; window < MAX_WINDOWS_PER_PAGE && position !== null && raws.length <= limit; window++) {
    const at: RankPosition = position;
    const need = limit + 1 - raws.length;
    const result: D1Result<Record<string, unknown>> = await db
      .prepare(sql)
      .bind(expression, at.top, ...scoreBinds, ...filterBinds, need, at.offset)
      .all<Record<string, unknown>>();
    const rows: Record<string, unknown>[] = result.results;
    rows.forEach((row, i) => {
      if (row.id === null || row.id === undefined) return;
      const { window_rows: _rows, window_bottom: _bottom, ...resource } = row;
      raws.push(resource);
      positions.push({ top: at.top, offset: at.offset + i });
    });
    if (raws.length > limit) break;
    // A full window may have older matches below it; a short one was the last.
    const windowRows = Number(rows[0]?.window_rows ?? 0);
    const windowBottom = Number(rows[0]?.window_bottom ?? 0);
    position = windowRows === RANK_WINDOW && windowBottom > 1 ? { top: windowBottom - 1, offset: 0 } : null;
  }
  if (raws.length > limit) return { raws: raws.slice(0, limit), nextCursor: formatRankCursor(positions[limit]!) };
  return { raws, nextCursor: position === null ? null : formatRankCursor(position) };
}
