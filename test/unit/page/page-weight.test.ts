import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { RAIL_JOBS_CRON } from "../../../src/jobs/scheduled";
import { CONSOLE_HTML, consoleCsp } from "../../../src/page/console-html";
import { HOME_HTML } from "../../../src/page/home-html";
import { TRANSACTION_HTML } from "../../../src/page/tx-html";

/** A file of static/ (the pages' scripts and styles), as served. */
const staticFile = (name: string) => readFileSync(new URL(`../../../static/assets/${name}`, import.meta.url), "utf8");
const CONSOLE_JS = staticFile("console.js");
const CONSOLE_CSS = staticFile("console.css");
const HOME_JS = staticFile("home.js");
const HOME_CSS = staticFile("home.css");
const TRANSACTION_SCRIPT = staticFile("tx.js");

/**
 * The page-weight budget stated in docs/running-locally.md ("Seller console"): each page with its script and styles, as
 * served (uncompressed) and gzip-compressed (what Cloudflare's edge sends to a browser that accepts it, at the least).
 */
const BUDGETS = {
  console: { files: [CONSOLE_HTML, CONSOLE_JS, CONSOLE_CSS], maxBytes: 48 * 1024, maxGzipBytes: 16 * 1024 },
  home: { files: [HOME_HTML, HOME_JS, HOME_CSS], maxBytes: 16 * 1024, maxGzipBytes: 6 * 1024 },
  transaction: {
    files: [TRANSACTION_HTML, TRANSACTION_SCRIPT, CONSOLE_CSS],
    maxBytes: 16 * 1024,
    maxGzipBytes: 6 * 1024,
  },
};

describe("page weight", () => {
  for (const [page, budget] of Object.entries(BUDGETS)) {
    it(`${page}: HTML + JS + CSS within ${budget.maxBytes} bytes (${budget.maxGzipBytes} gzip)`, () => {
      const bytes = budget.files.reduce((sum, file) => sum + Buffer.byteLength(file), 0);
      const gzipBytes = budget.files.reduce((sum, file) => sum + gzipSync(file).length, 0);
      expect(bytes).toBeLessThanOrEqual(budget.maxBytes);
      expect(gzipBytes).toBeLessThanOrEqual(budget.maxGzipBytes);
    });
  }
});

describe("console script", () => {
  it("is valid JavaScript (the module holds it as text) and carries the sweep schedule of the Cron Trigger", () => {
    expect(() => new Function(CONSOLE_JS)).not.toThrow();
    expect(() => new Function(HOME_JS)).not.toThrow();
    // Bundled and minified, the constant keeps its value: the schedule, once, written in place of the placeholder.
    expect(CONSOLE_JS.split(JSON.stringify(RAIL_JOBS_CRON)).length - 1).toBe(1);
    expect(CONSOLE_JS).not.toContain("@@");
  });

  it("CSP: connections only to the origin and the wallet RPC origin (never its path or key)", () => {
    expect(consoleCsp("https://rpc.example.com/v1/secret-key?api-key=x")).toContain(
      "connect-src 'self' https://rpc.example.com;",
    );
    expect(consoleCsp("not a url")).toContain("connect-src 'self';");
    expect(consoleCsp("ftp://rpc.example.com")).toContain("connect-src 'self';");
  });
});
