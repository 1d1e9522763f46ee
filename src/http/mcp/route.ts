import type { Hono } from "hono";
import { FacilitatorError } from "../../platform/errors/catalogue";
import type { AppContext, AppEnv } from "../context";
import { errorResponse } from "../error-handler";
import { parseJsonText } from "../json-text";
import { clientKeyOf, enforceRateLimit } from "../middleware/rate-limit";
import type { EndpointInfo } from "../route-def";
import { agentToolsOf, toolRequest } from "../self-description/agent-tools";
import { STATIC_ARTIFACT_PATHS } from "../self-description/static-artifacts";
import { buildToolServer, catalogueBody, statelessTransport } from "./tool-server";

export const MCP_PATH = STATIC_ARTIFACT_PATHS.mcp;
/**
 * JSON-RPC messages one POST may carry. The SDK takes up to 100, and one 19 KB batch of tool calls then made 100 RPC
 * calls; every tool call also counts against its route's own limit, this keeps one request's work small as well.
 */
export const MCP_MAX_BATCH_MESSAGES = 10;

/** Caller headers a tool call keeps, so the mapped route sees the same client (rate limits) and correlation id. */
const FORWARDED_HEADERS = ["CF-Connecting-IP", "X-Correlation-ID"];

/**
 * `/mcp`: MCP over Streamable HTTP, stateless (a fresh server and transport per POST, JSON responses, no session),
 * so it needs no Durable Object. Tool calls re-enter this app in-process with the same env and execution context.
 */
export function mountMcp(app: Hono<AppEnv>, endpoints: () => readonly EndpointInfo[]): void {
  app.post(MCP_PATH, async (c) => {
    await enforceRateLimit(c, "read", clientKeyOf(c));
    const parsed = parseJsonText(await c.req.text());
    if (!parsed.ok)
      return c.json(
        jsonRpcError(
          -32700,
          new FacilitatorError("BAD_REQUEST", `Parse error: ${parsed.message}`, { reason: "invalid_json" }),
        ),
        400,
      );
    if (Array.isArray(parsed.value) && parsed.value.length > MCP_MAX_BATCH_MESSAGES) {
      const message =
        `Invalid Request: a batch may hold at ` +
        `most ${MCP_MAX_BATCH_MESSAGES} messages (got ${parsed.value.length})`;
      return c.json(jsonRpcError(-32600, new FacilitatorError("BAD_REQUEST", message)), 400);
    }
    const origin = new URL(c.req.url).origin;
    const forwarded = FORWARDED_HEADERS.flatMap((name) => {
      const value = c.req.header(name);
      return value ? [[name, value] as [string, string]] : [];
    });
    const server = await buildToolServer(agentToolsOf(endpoints()), async (tool, args) => {
      const request = toolRequest(tool, origin, args);
      for (const [name, value] of forwarded) request.headers.set(name, value);
      return app.fetch(request, c.env, executionContextOf(c));
    });
    const transport = await statelessTransport();
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: parsed.value });
    } finally {
      await server.close();
    }
  });
  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
  const notAllowed = (c: AppContext) =>
    errorResponse(
      c,
      new FacilitatorError("METHOD_NOT_ALLOWED", "This MCP endpoint is stateless: POST JSON-RPC messages", {
        headers: { Allow: "POST" },
      }),
    );
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}

/**
 * JSON-RPC 2.0's error response; `data` is the catalogue's `{error, code, reason}` (docs/wire-notes.md "MCP errors").
 */
function jsonRpcError(code: number, error: FacilitatorError) {
  return { jsonrpc: "2.0", error: { code, message: error.message, data: catalogueBody(error) }, id: null };
}

/**
 * The caller's execution context (waitUntil for telemetry), absent when the app is driven by `app.request` in tests.
 */
function executionContextOf(c: AppContext): ExecutionContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}
