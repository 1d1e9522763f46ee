/** Deepest nesting of objects and arrays any request body may have; real x402 bodies stay under 8. */
export const MAX_JSON_DEPTH = 32;

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Parses a request body as JSON, refusing pathological nesting before anything recursive (schema checks,
 * comparisons, re-serialisation) can walk it and overflow the stack. One linear scan, strings skipped.
 */
export function parseJsonText(text: string): JsonTextResult {
  if (text.trim() === "") return { ok: false, message: "Request body is empty; a JSON object is required" };
  const depth = maxNestingDepth(text);
  if (depth > MAX_JSON_DEPTH) return { ok: false, message: `Request body nests deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `Request body is not valid JSON: ${(error as Error).message}` };
  }
}

function maxNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x22) {
      // Jump over the string with indexOf (the base64 transaction is most of a payment body); a quote preceded
      // by an odd run of backslashes is escaped.
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return deepest; // unterminated: JSON.parse refuses it
      i = end;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > MAX_JSON_DEPTH) return deepest;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}

function isEscaped(text: string, quoteIndex: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(quoteIndex - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}
