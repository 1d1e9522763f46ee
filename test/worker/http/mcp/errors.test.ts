import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../../src/app";
import type { Env } from "../../../../src/env";

/**
 * /mcp's errors (docs/wire-notes.md "MCP errors"): JSON-RPC 2.0's error shape, which MCP clients read —
 * `{jsonrpc, id, error: {code: <integer>, message, data}}` — with the catalogue's `{error, code, reason}` in
 * `error.data`; and a tool whose route refused answers a tool result (`isError`) whose body is the catalogue's body.
 * Requests go through the real app with the real bindings (workerd, D1, KV, the read rate limit).
 */
const app = buildApp();
const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function mcp(body: string) {
  const response = await app.request(
    "http://facilitator.test/mcp",
    { method: "POST", headers: { ...headers, "CF-Connecting-IP": `mcp-errors-${crypto.randomUUID()}` }, body },
    env as unknown as Env,
  );
  return { status: response.status, body: (await response.json()) as any };
}

const callTool = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } });

describe("/mcp errors: JSON-RPC's shape, the catalogue's body in error.data", () => {
  it(
    "an unknown tool: JSON-RPC -32602 with the request's id and data {error, code: NOT_FOUND, reason: " + "not_found}",
    async () => {
      const answer = await mcp(callTool("drain_fee_payer", {}));
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32602,
          message: expect.stringContaining("Unknown tool drain_fee_payer"),
          data: { error: expect.stringContaining("Unknown tool"), code: "NOT_FOUND", reason: "not_found" },
        },
      });
      expect(Number.isInteger(answer.body.error.code)).toBe(true);
    },
  );

  it("a body that is not JSON: -32700 with data reason invalid_json", async () => {
    const answer = await mcp("{not json");
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32700,
        message: expect.stringMatching(/^Parse error/),
        data: { code: "BAD_REQUEST", reason: "invalid_json" },
      },
    });
    expect(answer.body.error.data.error).toBe(answer.body.error.message);
  });

  it("a batch larger than allowed: -32600 with data reason invalid_request", async () => {
    const batch = Array.from({ length: 11 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list", params: {} }));
    const answer = await mcp(JSON.stringify(batch));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, data: { code: "BAD_REQUEST", reason: "invalid_request" } },
    });
  });

  it(
    "a tool whose route refuses: a tool result with isError, its body the catalogue's {error, code, reason, " +
      "correlationId}",
    async () => {
      const answer = await mcp(callTool("get_resource", { id: "999999" }));
      expect(answer.body).toMatchObject({
        jsonrpc: "2.0",
        id: 7,
        result: { isError: true, structuredContent: { status: 404, body: { code: "NOT_FOUND", reason: "not_found" } } },
      });
      const body = answer.body.result.structuredContent.body;
      expect(Object.keys(body)).toEqual(expect.arrayContaining(["error", "code", "reason", "correlationId"]));
      expect(JSON.parse(answer.body.result.content[0].text)).toEqual(answer.body.result.structuredContent);
    },
  );

  it(
    "arguments the route cannot take: a tool result with isError and the catalogue's body (reason " +
      "invalid_request)",
    async () => {
      const answer = await mcp(callTool("preview_seller", { wallet: ".." }));
      expect(answer.body).toMatchObject({
        jsonrpc: "2.0",
        id: 7,
        result: {
          isError: true,
          structuredContent: {
            status: 400,
            body: { code: "BAD_REQUEST", reason: "invalid_request", error: expect.any(String) },
          },
        },
      });
    },
  );
});
