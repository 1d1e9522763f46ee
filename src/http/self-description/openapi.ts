import { ERROR_STATUS } from "../../platform/errors/catalogue";
import { API_VERSION } from "../context";
import { type EndpointInfo, publicPath } from "../route-def";
import { SERVICE_NAME } from "./capabilities";
import { toJsonSchema } from "./json-schema";
import type { OriginRoute } from "./origin-routes";
import { SCHEMA_VERSION } from "./schema-version";

type Operation = Record<string, unknown>;

/**
 * OpenAPI 3.1 description generated from the mounted route table and its valibot schemas (so it can never list a
 * route that is not served, nor drift from what the routes validate), plus the origin-level routes.
 */
export function buildOpenApi(
  endpoints: readonly EndpointInfo[],
  origin: string,
  originRoutes: readonly OriginRoute[] = [],
) {
  const paths: Record<string, Record<string, Operation>> = {};
  const add = (path: string, method: string, operation: Operation) => {
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  };
  for (const endpoint of endpoints) add(publicPath(endpoint.path), endpoint.method, apiOperation(endpoint));
  for (const route of originRoutes) add(route.path, route.method, originOperation(route));
  return {
    openapi: "3.1.0",
    info: {
      title: SERVICE_NAME,
      version: API_VERSION,
      description:
        "x402 v2 payment facilitator for Solana: discovery, unsigned transaction builders, verify and settle.",
      // The discovery schema version reported by /health and /capabilities (docs/facilitator-spec.md §9).
      "x-schemaVersion": SCHEMA_VERSION,
    },
    servers: [{ url: origin }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Operator token (SVC_OPERATOR_TOKEN)" },
      },
      schemas: { JsonError: errorBodySchema() },
    },
  };
}

function apiOperation(endpoint: EndpointInfo): Operation {
  const parameters = [...pathParameters(endpoint), ...queryParameters(endpoint)];
  return {
    operationId: endpoint.key,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint.method === "POST"
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: endpoint.body ? toJsonSchema(endpoint.body) : { type: "object" } },
            },
          },
        }
      : {}),
    ...(endpoint.auth === "bearer" ? { security: [{ bearerAuth: [] }] } : {}),
    ...(endpoint.auth === "wallet-signature"
      ? { "x-auth": "wallet-signature: the body carries a challenge signed by the wallet (see the onboarding guide)" }
      : {}),
    responses: {
      "200": {
        description: "Success",
        content: {
          "application/json": { schema: endpoint.response ? toJsonSchema(endpoint.response) : { type: "object" } },
        },
      },
      "4XX": errorResponse(
        "Rejected request: `code` is one of the error catalogue, `reason` (listed in x-reasons) which mistake, " +
          "`error` says what to do",
        endpoint.reasons,
      ),
      "5XX": errorResponse("Internal, configuration or upstream (Solana RPC) failure", endpoint.reasons),
    },
  };
}

function originOperation(route: OriginRoute): Operation {
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: ["Artifacts"],
    responses: { "200": { description: "Success", content: { [route.contentType]: { schema: {} } } } },
  };
}

/** One OpenAPI parameter per segment of the path, described by the route's params schema (the form it validates). */
function pathParameters(endpoint: EndpointInfo) {
  const described = endpoint.params ? propertiesOf(endpoint.params) : { properties: {} };
  return [...endpoint.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
    name: m[1]!,
    in: "path",
    required: true,
    schema: described.properties?.[m[1]!] ?? { type: "string" },
  }));
}

/** One OpenAPI parameter per key of the route's query schema. */
function queryParameters(endpoint: EndpointInfo) {
  if (!endpoint.query) return [];
  const described = propertiesOf(endpoint.query);
  return Object.entries(described.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: described.required?.includes(name) ?? false,
    schema,
  }));
}

function propertiesOf(schema: NonNullable<EndpointInfo["query"]>): {
  properties?: Record<string, unknown>;
  required?: string[];
} {
  return toJsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
}

/** The body every error answers with (src/http/error-handler.ts): route-specific fields may be added. */
function errorBodySchema() {
  return {
    type: "object",
    required: ["error", "code", "reason", "correlationId"],
    properties: {
      error: { type: "string", description: "What went wrong and what to do, for a person" },
      reason: {
        type: "string",
        description:
          "Stable machine-readable reason (each operation lists its own); on /verify and /settle the same as " +
          "invalidReason / errorReason",
      },
      code: {
        type: "string",
        description: "Catalogue code (HTTP status in parentheses)",
        enum: errorCodes(),
        "x-status": ERROR_STATUS,
      },
      correlationId: { type: ["string", "null"] },
      field: {
        type: "string",
        description:
          "On invalid_request: the field the error is about, as a dot path (accepted.amount, accepts[0].payTo)",
      },
      invalidReason: { type: "string", description: "x402 reason on /verify rejections" },
      errorReason: { type: "string", description: "x402 reason on /settle failures" },
    },
    additionalProperties: true,
  };
}

/** Catalogue codes plus the x402 pending answer of /settle (202). */
function errorCodes(): string[] {
  return [...Object.keys(ERROR_STATUS), "SETTLEMENT_PENDING"];
}

/**
 * An error response; `reasons`: the route's own list (src/http/route-def.ts), as `x-reasons` and as the enum of
 * `reason`.
 */
function errorResponse(description: string, reasons: readonly string[] = []) {
  const schema =
    reasons.length === 0
      ? { $ref: "#/components/schemas/JsonError" }
      : {
          allOf: [
            { $ref: "#/components/schemas/JsonError" },
            { type: "object", properties: { reason: { type: "string", enum: [...reasons] } } },
          ],
        };
  return { description, "x-reasons": [...reasons], content: { "application/json": { schema } } };
}
