import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { FacilitatorError } from "../../platform/errors/catalogue";
import { API_VERSION } from "../context";
import { type AgentTool, ToolArgumentError } from "../self-description/agent-tools";
import { SERVICE_NAME } from "../self-description/capabilities";

/** Runs one tool call as the HTTP request it maps to and returns the Response (in-process, same env). */
export type ToolInvoker = (tool: AgentTool, args: Record<string, unknown>) => Promise<Response>;

/**
 * An MCP server whose tools are the agent tools of the route table: listing returns their JSON Schemas, a call
 * runs the mapped route, so MCP answers exactly what HTTP answers (status, body, rate limits, errors).
 */
export async function buildToolServer(tools: readonly AgentTool[], invoke: ToolInvoker): Promise<Server> {
  const { Server, CallToolRequestSchema, ListToolsRequestSchema } = await loadMcpSdk();
  const server = new Server(
    { name: SERVICE_NAME, version: API_VERSION },
    { capabilities: { tools: {} }, jsonSchemaValidator: NEVER_ELICITS },
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    // MCP answers an unknown tool as a protocol error (JSON-RPC -32602), with the catalogue's body in error.data.
    if (!tool)
      throw new JsonRpcError(
        JSON_RPC_INVALID_PARAMS,
        new FacilitatorError("NOT_FOUND", `Unknown tool ${request.params.name}: see tools/list`),
      );
    let response: Response;
    try {
      response = await invoke(tool, request.params.arguments ?? {});
    } catch (error) {
      // Arguments the route cannot take are the agent's to fix: a tool result with isError, like a route's 400.
      if (error instanceof ToolArgumentError)
        return toolResult(400, catalogueBody(new FacilitatorError("BAD_REQUEST", error.message)));
      throw error;
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: passed through as text.
    }
    return toolResult(response.status, body);
  });
  return server;
}

/**
 * A tool's answer: the mapped route's status and body (on a failure, the catalogue's `{error, code, reason,
 * correlationId}`), as text and as structured content. 202 (settlement pending) is not an error: the agent should
 * poll get_settlement_status.
 */
function toolResult(status: number, body: unknown): CallToolResult {
  const result = { status, body };
  return {
    content: [{ type: "text", text: JSON.stringify(result) }],
    structuredContent: result,
    isError: status >= 400,
  };
}

/** JSON-RPC 2.0's "Invalid params", which MCP uses for an unknown tool. */
export const JSON_RPC_INVALID_PARAMS = -32602;

/** The catalogue's error body (src/http/error-handler.ts) without a correlation id of its own. */
export function catalogueBody(error: FacilitatorError): { error: string; code: string; reason: string } {
  return { ...error.fields, error: error.message, code: error.code, reason: error.reason };
}

/**
 * An error the MCP SDK answers as `{jsonrpc, id, error: {code, message, data}}`: it copies an integer `code` and any
 * `data` of a thrown error (the SDK's Protocol request handler), so `data` carries the catalogue's body.
 */
class JsonRpcError extends Error {
  readonly code: number;
  readonly data: ReturnType<typeof catalogueBody>;
  constructor(code: number, error: FacilitatorError) {
    super(error.message);
    this.code = code;
    this.data = catalogueBody(error);
  }
}

/**
 * The MCP SDK is loaded on the first /mcp call rather than at start: its modules build hundreds of zod schemas when
 * they load, ~35 ms of CPU on every cold start of the Worker (measured with the bundle in Node), for a route only
 * MCP agents use. Only SDK modules are imported lazily, so the bundler keeps tree-shaking everything else. Not memoised
 * here: the module system already keeps the loaded modules, and a promise shared across requests is one workerd
 * warns about.
 */
async function loadMcpSdk() {
  const [server, types, transport] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  ]);
  return {
    Server: server.Server,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    StreamableHttpTransport: transport.WebStandardStreamableHTTPServerTransport,
  };
}

/** A stateless Streamable HTTP transport (JSON responses, no session) for one request. */
export async function statelessTransport() {
  const { StreamableHttpTransport } = await loadMcpSdk();
  return new StreamableHttpTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
}

/**
 * The SDK validates elicitation answers with this; the server never elicits (and ajv is not bundled, see no-ajv.ts).
 */
const NEVER_ELICITS: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error("This MCP server does not elicit input");
  },
};
