import { API_VERSION } from "../http/context";
import { publicPath, type EndpointInfo } from "../http/route-def";
import { SERVICE_NAME } from "./capabilities";
import { toJsonSchema } from "./json-schema";

/** OpenAPI 3.1 description generated from the mounted route table (so it can never list a route that is not served). */
export function buildOpenApi(endpoints: readonly EndpointInfo[], origin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    const path = publicPath(endpoint.path);
    const pathParams = [...endpoint.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const parameters = [...pathParams, ...queryParameters(endpoint)];
    paths[path] ??= {};
    paths[path][endpoint.method.toLowerCase()] = {
      operationId: endpoint.key,
      summary: endpoint.summary,
      tags: [endpoint.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(endpoint.method === "POST"
        ? { requestBody: { required: true, content: { "application/json": { schema: endpoint.body ? toJsonSchema(endpoint.body) : { type: "object" } } } } }
        : {}),
      ...(endpoint.auth === "bearer" ? { security: [{ bearerAuth: [] }] } : {}),
      responses: {
        "200": { description: "Success", content: { "application/json": { schema: { type: "object" } } } },
        "4XX": errorResponse("Invalid request"),
        "5XX": errorResponse("Internal, configuration or upstream (Solana RPC) failure"),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: SERVICE_NAME,
      version: API_VERSION,
      description: "x402 v2 payment facilitator for Solana: discovery, unsigned transaction builders, verify and settle.",
    },
    servers: [{ url: origin }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: {
        JsonError: {
          type: "object",
          required: ["error", "code", "correlationId"],
          properties: {
            error: { type: "string" },
            code: { type: "string" },
            correlationId: { type: ["string", "null"] },
          },
        },
      },
    },
  };
}

/** One OpenAPI parameter per key of the route's query schema. */
function queryParameters(endpoint: EndpointInfo) {
  if (!endpoint.query) return [];
  const described = toJsonSchema(endpoint.query) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(described.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: described.required?.includes(name) ?? false,
    schema,
  }));
}

function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: { $ref: "#/components/schemas/JsonError" } } } };
}
