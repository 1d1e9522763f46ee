import { badRequest } from "../errors/catalogue";

/**
 * RFC 3339 with microseconds and Z (docs/wire-notes.md "Directory"): the time format of list records and of their
 * cursors. Stored times are milliseconds, so µs are 000.
 */
export function rfc3339Micros(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A list cursor (the last entry's `updatedAt`) as an exclusive upper bound in milliseconds, or null when it is
 * not RFC 3339. Sub-millisecond digits round up, so every row strictly older than the cursor instant is kept.
 */
export function cursorToExclusiveMs(cursor: string): number | null {
  const match = RFC3339.exec(cursor);
  if (!match) return null;
  const wholeSecondsMs = Date.parse(`${match[1]}${match[3]}`);
  if (!Number.isFinite(wholeSecondsMs)) return null;
  const micros = Number((match[2] ?? "").padEnd(6, "0").slice(0, 6));
  const hasMoreDigits = /[1-9]/.test((match[2] ?? "").slice(6));
  return wholeSecondsMs + Math.ceil((micros + (hasMoreDigits ? 1 : 0)) / 1000);
}

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
  if (
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000Z$/.test(time) ||
    !Number.isFinite(ms) ||
    !tieBreakerPattern.test(tieBreaker)
  )
    throw invalid();
  return { updatedAtMs: ms, tieBreaker };
}
