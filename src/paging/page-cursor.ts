import { badRequest } from "../errors/catalogue";
import { cursorToExclusiveMs, rfc3339Micros } from "../providers/provider-entry";

/**
 * Keyset cursor of the directory lists (newest `updatedAt` first): `<updatedAt RFC 3339>~<tie-breaker>`, the
 * tie-breaker being the last entry's id (or wallet), so many rows updated in the same millisecond page without
 * duplicates or gaps. A bare timestamp (the older form) is still accepted and means "strictly older than".
 */
export interface PagePosition {
  updatedAtMs: number;
  /** Absent for a bare timestamp cursor. */
  tieBreaker?: string;
}

export function formatPageCursor(updatedAtMs: number, tieBreaker: string | number): string {
  return `${rfc3339Micros(updatedAtMs)}~${tieBreaker}`;
}

export function parsePageCursor(cursor: string, tieBreakerPattern: RegExp): PagePosition {
  const [time, tieBreaker, ...rest] = cursor.split("~");
  const invalid = () => badRequest("cursor: must be the nextCursor of the previous page");
  if (rest.length > 0 || time === undefined) throw invalid();
  if (tieBreaker === undefined) {
    const exclusiveMs = cursorToExclusiveMs(time);
    if (exclusiveMs === null) throw invalid();
    // "strictly older than the instant" = at most exclusiveMs - 1 with no tie-breaker bound.
    return { updatedAtMs: exclusiveMs };
  }
  const ms = Date.parse(time);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000Z$/.test(time) || !Number.isFinite(ms) || !tieBreakerPattern.test(tieBreaker)) throw invalid();
  return { updatedAtMs: ms, tieBreaker };
}
