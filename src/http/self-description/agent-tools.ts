import { type EndpointInfo, publicPath } from "../route-def";
import { toJsonSchema } from "./json-schema";

type JsonSchema = Record<string, unknown>;

/** An agent tool: one `agentTool`-marked route, its input as one JSON Schema object, and the HTTP call it maps to. */
export interface AgentTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  http: {
    method: "GET" | "POST";
    /** Public path with `{param}` placeholders filled from the arguments of the same name. */
    path: string;
    pathParams: string[];
    queryParams: string[];
    /** POST routes: the JSON request body is the `body` argument. */
    body: boolean;
  };
  auth?: string;
}

/**
 * The agent tool catalog, generated from the route table (shared by /agent-tools.json and /mcp, so the two
 * cannot disagree). Arguments: path and query parameters by name, the JSON body under `body`.
 */
export function agentToolsOf(endpoints: readonly EndpointInfo[]): AgentTool[] {
  return endpoints.flatMap((endpoint) => (endpoint.agentTool ? [toolOf(endpoint, endpoint.agentTool)] : []));
}

function toolOf(endpoint: EndpointInfo, tool: NonNullable<EndpointInfo["agentTool"]>): AgentTool {
  const pathParams = [...endpoint.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  const query = endpoint.query
    ? (toJsonSchema(endpoint.query) as { properties?: Record<string, JsonSchema>; required?: string[] })
    : {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const name of pathParams) {
    properties[name] = { type: "string", description: `Path parameter ${name}` };
    required.push(name);
  }
  for (const [name, schema] of Object.entries(query.properties ?? {})) properties[name] = schema;
  required.push(...(query.required ?? []));
  const hasBody = endpoint.method === "POST";
  if (hasBody) {
    properties.body = endpoint.body ? toJsonSchema(endpoint.body) : { type: "object" };
    required.push("body");
  }
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { type: "object", properties, ...(required.length > 0 ? { required } : {}) },
    http: {
      method: endpoint.method,
      path: publicPath(endpoint.path),
      pathParams,
      queryParams: Object.keys(query.properties ?? {}),
      body: hasBody,
    },
    ...(endpoint.auth ? { auth: endpoint.auth } : {}),
  };
}

/** The HTTP request a tool call stands for (path and query filled from the arguments). */
export function toolRequest(tool: AgentTool, origin: string, args: Record<string, unknown>): Request {
  let path = tool.http.path;
  for (const name of tool.http.pathParams) {
    const value = String(args[name] ?? "");
    // URL parsing resolves "." and ".." segments (even percent-encoded): they would leave the tool's own route.
    if (value === "." || value === "..") throw new ToolArgumentError(`${name} must not be "${value}"`);
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const url = new URL(path, origin);
  for (const name of tool.http.queryParams) {
    const value = args[name];
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  if (!tool.http.body) return new Request(url, { method: tool.http.method });
  return new Request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(args.body ?? {}),
  });
}

/** A tool argument that cannot form the tool's HTTP request. */
export class ToolArgumentError extends Error {
  override name = "ToolArgumentError";
}
