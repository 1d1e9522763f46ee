import { describe, expect, it } from "vitest";
import { call } from "../../../support/workerd/worker-http";

/** Every served artifact: its content type, a strong ETag honoured by If-None-Match (304), Cache-Control and CORS. */
const ORIGIN = "http://facilitator.test";
const ARTIFACTS: [string, RegExp][] = [
  ["/openapi.json", /^application\/json; charset=utf-8$/],
  ["/agent-tools.json", /^application\/json; charset=utf-8$/],
  ["/agent-payTo-semantics.json", /^application\/json; charset=utf-8$/],
  ["/agent-integration.md", /^text\/markdown; charset=utf-8$/],
  ["/seller-quick-start.md", /^text\/markdown; charset=utf-8$/],
  ["/onboarding_guide.md", /^text\/markdown; charset=utf-8$/],
  ["/assets/home.js", /^text\/javascript; charset=utf-8$/],
  ["/assets/home.css", /^text\/css; charset=utf-8$/],
  ["/console", /^text\/html; charset=utf-8$/],
  ["/assets/console.js", /^text\/javascript; charset=utf-8$/],
  ["/assets/console.css", /^text\/css; charset=utf-8$/],
  ["/console/tx", /^text\/html; charset=utf-8$/],
  ["/assets/tx.js", /^text\/javascript; charset=utf-8$/],
];

describe("artifact headers", () => {
  for (const [path, type] of ARTIFACTS) {
    it(`${path}: content type, ETag → 304, Cache-Control, CORS`, async () => {
      const first = await call(ORIGIN + path, { headers: { Origin: "https://agent.example" } });
      expect(first.status).toBe(200);
      expect(first.headers.get("Content-Type")).toMatch(type);
      const etag = first.headers.get("ETag");
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(first.headers.get("Cache-Control")).toMatch(/max-age=\d+/);
      expect(first.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(first.headers.get("Access-Control-Expose-Headers")).toMatch(/ETag/);
      const again = await call(ORIGIN + path, { headers: { "If-None-Match": etag! } });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
      const stale = await call(ORIGIN + path, { headers: { "If-None-Match": '"0000"' } });
      expect(stale.status).toBe(200);
    });
  }

  it("GET / is the page for browsers (CSP 'self') and capabilities JSON for API clients", async () => {
    const page = await call(ORIGIN + "/", {
      headers: { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(page.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("Content-Security-Policy")).toMatch(/default-src 'self'/);
    expect(page.text).toContain('<script src="/assets/home.js" defer></script>');
    expect(page.text).not.toMatch(/<script>(?!<)/); // no inline script: the CSP would block it
    for (const accept of ["application/json", "*/*", ""]) {
      const json = await call(ORIGIN + "/", { headers: accept ? { Accept: accept } : {} });
      expect(json.headers.get("Content-Type"), accept).toMatch(/^application\/json/);
      expect(json.body.x402Version).toBe(2);
    }
  });

  for (const [path, script] of [
    ["/console", "/assets/console.js"],
    ["/console/tx", "/assets/tx.js"],
  ]) {
    it(`GET ${path}: no inline script, CSP 'self' plus only the wallet RPC origin for connections`, async () => {
      const page = await call(ORIGIN + path);
      expect(page.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("Content-Security-Policy")).toMatch(
        new RegExp(
          String.raw`^default-src 'self'; connect-src 'self' http:\/\/127\.0\.0\.1:\d+; img-src 'self' data:; ` +
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'$",
        ),
      );
      expect(page.text).toContain(`<script src="${script}" defer></script>`);
      expect(page.text).not.toMatch(/<script>(?!<)/);
    });
  }
});
