/** Page size of every list: the default when the caller names none, and the most one page returns. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

export function clampPageLimit(limit: number | undefined): number {
  return limit === undefined ? DEFAULT_PAGE_LIMIT : Math.min(MAX_PAGE_LIMIT, Math.max(1, limit));
}
