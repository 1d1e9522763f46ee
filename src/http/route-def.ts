import type { Handler, Hono } from "hono";
import type * as v from "valibot";
import { API_PREFIX, type AppEnv } from "./context";
import { withReadRateLimit } from "./middleware/rate-limit";

/** What an endpoint is, for the router, `/capabilities.httpEndpoints` and `/openapi.json` alike. */
export interface EndpointInfo {
  /** camelCase key under `httpEndpoints` (e.g. `sellerPreview`). */
  key: string;
  method: "GET" | "POST";
  /** Path below `/api/v1/facilitator`, Hono syntax (`/sellers/:wallet/preview`). */
  path: string;
  summary: string;
  tag: string;
  auth?: "bearer" | "wallet-signature";
  /** The schema that validates the JSON body (documented in /openapi.json). */
  body?: v.GenericSchema;
  /** The schema that validates the query string. */
  query?: v.GenericSchema;
  response?: v.GenericSchema;
  agentTool?: { name: string; description: string };
}

export interface RouteDef extends EndpointInfo {
  handler: Handler<AppEnv>;
}

/**
 * Registers routes under the API prefix; listing and serving come from the same table, so nothing is advertised that
 * is not served. Every GET is an anonymous read (chain, D1 or KV) and goes under the per-client read limit here, so a
 * new GET route cannot be added without one; POST routes carry their own limits (builders, verify/settle).
 */
export function mountRoutes(app: Hono<AppEnv>, routes: readonly RouteDef[]): void {
  for (const route of routes) app.on(route.method, API_PREFIX + route.path, route.method === "GET" ? withReadRateLimit(route.handler) : route.handler);
}

/** Public form of a path: `{wallet}` instead of Hono's `:wallet`. */
export function publicPath(path: string): string {
  return API_PREFIX + path.replace(/:([A-Za-z]+)/g, "{$1}");
}
