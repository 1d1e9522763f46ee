/**
 * The one way the pages write a moment: "2026-11-28 17:30:05 UTC". The API answers RFC 3339 with milliseconds or
 * microseconds (".123Z", ".123000Z"); the pages also stamp their own actions with the browser's clock. Pure.
 */
export function formatTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === "") return "unknown time";
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(ms)) return typeof value === "string" ? value : "unknown time";
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ") + " UTC";
}

/** Hours and minutes only, for a time later today ("17:30 UTC"). */
export function formatClock(date: Date): string {
  return date.toISOString().slice(11, 16) + " UTC";
}
