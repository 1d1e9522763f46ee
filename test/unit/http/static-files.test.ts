import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { API_VERSION } from "../../../src/http/context";
import { CORS_HEADERS } from "../../../src/http/middleware/standard-headers";
import { ORIGIN_ROUTES } from "../../../src/http/self-description/origin-routes";
import { STATIC_FILE_CACHE, STATIC_FILE_PATHS } from "../../../src/http/static-files";

const STATIC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../static");

/** Every file under static/ by its URL path, but the _headers file (configuration, never served). */
function servedPaths(dir = STATIC, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const urlPath = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) return servedPaths(path.join(dir, entry.name), urlPath);
    return urlPath === "/_headers" ? [] : [urlPath];
  });
}

/**
 * The header lines static/_headers gives the paths under `pattern` (Cloudflare's format: a path, then indented lines).
 */
function headersFor(pattern: string): Record<string, string> {
  const headers: Record<string, string> = {};
  let inBlock = false;
  for (const line of readFileSync(path.join(STATIC, "_headers"), "utf8").split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    if (!line.startsWith(" ")) {
      inBlock = line.trim() === pattern;
      continue;
    }
    if (!inBlock) continue;
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

describe("static/ (the Worker's static assets)", () => {
  it("holds exactly the files the Worker names (STATIC_FILE_PATHS), each documented as an origin route", () => {
    expect(servedPaths().sort()).toEqual([...STATIC_FILE_PATHS].sort());
    const documented = new Set(ORIGIN_ROUTES.map((route) => route.path));
    for (const file of STATIC_FILE_PATHS) expect(documented.has(file), file).toBe(true);
  });

  it("gives them the caching and CORS headers of the Worker's own answers (static/_headers)", () => {
    expect(headersFor("/assets/*")).toEqual({
      "Cache-Control": STATIC_FILE_CACHE,
      ...CORS_HEADERS,
      "X-API-Version": API_VERSION,
    });
  });
});
