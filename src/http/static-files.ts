import { notFound } from "../platform/errors/catalogue";
import type { AppContext } from "./context";

/**
 * The files of static/ (wrangler.toml [assets]: the pages' scripts and styles, built or written, never generated per
 * request). Cloudflare answers these paths from the files before the Worker runs; the Worker answers them only where
 * nothing stands in front of it (local serving binds ASSETS to the same files, scripts/lib/serve-worker.ts), from the
 * same files with their static/_headers. test/unit/http/static-files.test.ts holds this list to the directory.
 */
export const STATIC_FILE_PATHS = [
  "/assets/home.js",
  "/assets/home.css",
  "/assets/console.js",
  "/assets/console.css",
  "/assets/tx.js",
] as const;

/** Their Cache-Control (static/_headers), which the pages served by the Worker share. */
export const STATIC_FILE_CACHE = "public, max-age=300";

/** A file of static/ through the ASSETS binding: its own status, ETag/304, type and static/_headers. */
export async function staticFile(c: AppContext): Promise<Response> {
  if (!c.env.ASSETS) throw notFound(`${c.req.path} is a file of static/, and this Worker has no ASSETS binding`);
  const file = await c.env.ASSETS.fetch(c.req.raw);
  return new Response(file.body, file); // a fetched response's headers are immutable; the middleware adds its own
}
