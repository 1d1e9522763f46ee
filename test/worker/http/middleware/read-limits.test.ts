import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../../src/app";
import type { Env } from "../../../../src/env";
import { MCP_MAX_BATCH_MESSAGES } from "../../../../src/http/mcp/route";
import { RATE_LIMITS } from "../../../../src/http/middleware/rate-limit";
import { API, call } from "../../../support/workerd/worker-http";

/**
 * Issue 22 §3: no amplification, no unmetered reads. The read limit runs on the real Workers Rate Limiting binding of
 * wrangler.toml (RATE_LIMIT_READ, workerd here as in production); requests go through app.request with the real
 * bindings, as in rate-limits.test.ts. Each test uses client addresses of its own.
 */
const app = buildApp();
const workerEnv = env as unknown as Env;
const request = async (path: string, client: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", client);
  // Origin-level paths (/mcp, /dist/…) live outside the API prefix.
  const url = path === "/mcp" || path.startsWith("/dist/") ? `http://facilitator.test${path}` : API + path;
  const response = await app.request(url, { ...init, headers }, workerEnv);
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
};

/** Spends the client's read budget: bursts of cheap reads until one is refused. */
async function exhaustReads(client: string): Promise<void> {
  for (let sent = 0; sent < 3 * RATE_LIMITS.read.limit; sent += 32) {
    const answers = await Promise.all(Array.from({ length: 32 }, () => request("/directory/stats", client)));
    if (answers.some((a) => a.status === 429)) return;
  }
  throw new Error("the read limit never refused");
}

const wallet = "11111111111111111111111111111112";
/** The POSTs among the anonymous reads (both run the enrich transform, which reads the chain). */
const ENRICH = "/payment-required/enrich";
const FAREMETER_ACCEPTS = "/accepts";
const POST_READS = [ENRICH, FAREMETER_ACCEPTS];
const READ_ROUTES = [
  "/health",
  `/fee-quote?wallet=${wallet}&amount=1000&asset=USDC`,
  `/sellers/${wallet}/preview`,
  `/vault-snapshot?wallet=${wallet}`,
  `/settlements/${"1".repeat(64)}`,
  "/providers",
  `/providers/${wallet}`,
  "/resources",
  "/resources/1",
  "/discovery/resources?type=http",
  "/directory/stats",
  `/resources/register/challenge?wallet=${wallet}`,
  `/sellers/${wallet}/challenge`,
  "/dist/resource-index.json",
  ENRICH,
  FAREMETER_ACCEPTS,
];

describe("per-client read limit", () => {
  it(
    "every anonymous read route answers 429 with Retry-After once a client is over the read limit; other clients " +
      "are not",
    async () => {
      const client = `read-${crypto.randomUUID()}`;
      const fresh = `read-${crypto.randomUUID()}`;
      for (const path of READ_ROUTES.filter((p) => !POST_READS.includes(p)))
        expect((await request(path, fresh)).status, path).not.toBe(429);

      // A window may turn over during the checks: re-spend the budget and re-check what got through, once.
      let pending = READ_ROUTES;
      for (let attempt = 0; attempt < 2 && pending.length > 0; attempt++) {
        await exhaustReads(client);
        const answers = await Promise.all(
          pending.map(
            async (path) =>
              [
                path,
                POST_READS.includes(path)
                  ? await request(path, client, {
                      method: "POST",
                      headers: { "Content-Type": "application/json" },
                      body: "{}",
                    })
                  : await request(path, client),
              ] as const,
          ),
        );
        for (const [path, answer] of answers) {
          if (answer.status !== 429) continue;
          expect(answer.headers.get("Retry-After"), path).toBe(String(RATE_LIMITS.read.periodSeconds));
          expect(answer.body, path).toMatchObject({
            code: "RATE_LIMITED",
            retryAfterSeconds: RATE_LIMITS.read.periodSeconds,
          });
        }
        pending = answers.filter(([, answer]) => answer.status !== 429).map(([path]) => path);
      }
      expect(pending).toEqual([]);
    },
  );

  it("/discovery/resources refuses an offset past the cap instead of scanning (400 naming offset)", async () => {
    const deep = await call("/discovery/resources?offset=999999999");
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatch(/^offset: must be at most 10000/);
    expect((await call("/discovery/resources?offset=10000")).status).toBe(200);
  });

  it("OpenAPI tags are truthful: /vault-snapshot needs no token and is not an Operator route", async () => {
    const openapi = await call("http://facilitator.test/openapi.json");
    const snapshot = openapi.body.paths["/api/v1/facilitator/vault-snapshot"].get;
    expect(snapshot.security ?? []).toEqual([]);
    expect(snapshot.tags).not.toContain("Operator");
    for (const [path, methods] of Object.entries<any>(openapi.body.paths)) {
      for (const operation of Object.values<any>(methods)) {
        if (operation.tags?.includes("Operator")) expect(operation.security, path).toEqual([{ bearerAuth: [] }]);
      }
    }
  });
});

describe("/mcp: no amplification", () => {
  const mcpHeaders = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const toolCall = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "get_resource", arguments: { id: "1" } },
  });

  it(
    `refuses a JSON-RPC batch of more ` + `than ${MCP_MAX_BATCH_MESSAGES} messages before running any of them`,
    async () => {
      const client = `mcp-${crypto.randomUUID()}`;
      const batch = Array.from({ length: 100 }, (_, i) => toolCall(i));
      const refused = await request("/mcp", client, {
        method: "POST",
        headers: mcpHeaders,
        body: JSON.stringify(batch),
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringContaining(`at most ${MCP_MAX_BATCH_MESSAGES}`) },
      });
      const allowed = await request("/mcp", client, {
        method: "POST",
        headers: mcpHeaders,
        body: JSON.stringify(batch.slice(0, MCP_MAX_BATCH_MESSAGES)),
      });
      expect(allowed.status).toBe(200);
      expect(allowed.body).toHaveLength(MCP_MAX_BATCH_MESSAGES);
    },
  );

  it("every tool call counts against its route's per-client limit, sharing the budget with HTTP", async () => {
    const client = `mcp-${crypto.randomUUID()}`;
    const batch = Array.from({ length: MCP_MAX_BATCH_MESSAGES }, (_, i) => toolCall(i));
    let limitedToolCalls = 0;
    let posts = 0;
    // Each POST is 1 read plus 10 tool calls of a GET route: the budget runs out after ~300 / 11 POSTs.
    while (limitedToolCalls === 0 && posts < 3 * Math.ceil(RATE_LIMITS.read.limit / MCP_MAX_BATCH_MESSAGES)) {
      posts++;
      const answer = await request("/mcp", client, {
        method: "POST",
        headers: mcpHeaders,
        body: JSON.stringify(batch),
      });
      if (answer.status === 429) break; // the POST itself is a read too
      expect(answer.status).toBe(200);
      limitedToolCalls = (answer.body as any[]).filter((m) => m.result?.structuredContent?.status === 429).length;
    }
    expect(posts).toBeLessThan(2 * Math.ceil(RATE_LIMITS.read.limit / MCP_MAX_BATCH_MESSAGES) + 2);
    // The same client's plain HTTP reads are out of budget as well.
    expect((await request("/resources/1", client)).status).toBe(429);
  });
});
