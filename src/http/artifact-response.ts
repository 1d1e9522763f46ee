import { toHex } from "../chain/bytes";
import { shareOnceFulfilled } from "../platform/cache/share-once-fulfilled";
import type { AppContext } from "./context";

const encoder = new TextEncoder();
const etags = new Map<string, Promise<string>>();

/**
 * Answers a served artifact with its content type, a strong ETag (SHA-256 of the body; If-None-Match → 304),
 * a Cache-Control suited to it and CORS for any origin (standard-headers exposes ETag), so agents and browsers
 * revalidate cheaply.
 */
export async function artifactResponse(
  c: AppContext,
  body: string,
  contentType: string,
  cacheControl: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const etag = await etagOf(body);
  const headers: Record<string, string> = {
    "Content-Type": contentType,
    ETag: etag,
    "Cache-Control": cacheControl,
    "Access-Control-Allow-Origin": "*",
    ...extraHeaders,
  };
  const match = c.req.header("If-None-Match");
  if (match?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) return c.body(null, 304, headers);
  return c.body(body, 200, headers);
}

/** Bodies are few and mostly constant: their hashes are remembered per isolate (bounded, settled ones only). */
function etagOf(body: string): Promise<string> {
  return (
    etags.get(body) ??
    shareOnceFulfilled(
      crypto.subtle
        .digest("SHA-256", encoder.encode(body))
        .then((digest) => `"${toHex(new Uint8Array(digest)).slice(0, 32)}"`),
      (etag) => {
        if (etags.size > 64) etags.clear();
        etags.set(body, etag);
      },
    )
  );
}
