import { log } from "../../platform/observability/log";

/**
 * FTS5 deletes lazily: an unlisted or edited resource leaves a delete marker in the index until its segment is
 * merged, and every query walks those markers (after unlisting 90,000 of 100,000 rows, a common-word window took
 * ~11 ms instead of ~1 ms in SQLite here). Writes merge a little on their own (automerge); this job adds a bounded
 * amount of merge work on each probe trigger, so a mass unlisting (a big merchant retired, a probe outage) stops
 * costing search time within a few runs. One D1 query per run.
 */
export const SEARCH_INDEX_MERGE_PAGES = 500;

export async function mergeSearchIndex(db: D1Database, pages = SEARCH_INDEX_MERGE_PAGES): Promise<{ changes: number }> {
  // 'merge' with a positive page count works at most that many leaf pages (sqlite.org/fts5.html "The 'merge' Command").
  const result = await db
    .prepare("INSERT INTO resources_fts (resources_fts, rank) VALUES ('merge', ?)")
    .bind(pages)
    .run();
  const changes = Number(result.meta.changes ?? 0);
  log("info", "search_index_merge", { pages, changes });
  return { changes };
}
