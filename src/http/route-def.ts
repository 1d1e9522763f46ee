import type { Handler, Hono } from "hono";
import type * as v from "valibot";
import { SIGNED_CHALLENGE_REASONS } from "../directory/wallet-challenges/signed-challenge";
import { type ErrorReason, isFacilitatorError, refused } from "../platform/errors/catalogue";
import { foreignNetworkMessage, valueAt } from "../x402/network-check";
import { API_PREFIX, type AppContext, type AppEnv } from "./context";
import { type JsonTextResult, parseJsonText } from "./json-text";
import { requireOperatorBearer } from "./middleware/operator-auth";
import { clientKeyOf, enforceRateLimit, type LimitName, withReadRateLimit } from "./middleware/rate-limit";
import { readJsonBody, validate } from "./parse-input";

/** What an endpoint is, for the router, `/capabilities.httpEndpoints` and `/openapi.json` alike. */
export interface EndpointInfo {
  /** camelCase key under `httpEndpoints` (e.g. `sellerPreview`). */
  key: string;
  method: "GET" | "POST";
  /** Path below `/api/v1/facilitator`, Hono syntax (`/sellers/:wallet/preview`). */
  path: string;
  summary: string;
  tag: string;
  /**
   * `bearer`: the route refuses a request without the operator token before reading it (`wallet-signature`: documented;
   * the body's challenge is checked by the handler).
   */
  auth?: "bearer" | "wallet-signature";
  /** The schema that validates the path parameters. */
  params?: v.GenericSchema;
  /** The schema that validates the query string. */
  query?: v.GenericSchema;
  /** The schema that validates the JSON body (documented in /openapi.json). */
  body?: v.GenericSchema;
  response?: v.GenericSchema;
  /**
   * Where the body names a network (paths of keys, e.g. `["accepted", "network"]`): a network other than this
   * deployment's is refused as `invalid_network` before the rest of the body is judged (src/x402/network-check.ts).
   */
  networkAt?: readonly (readonly string[])[];
  /** The reasons this route's handler may answer with, besides those of its input checks (listed in /openapi.json). */
  reasons?: readonly ErrorReason[];
  agentTool?: { name: string; description: string };
}

/** A mounted route: the endpoint and the Hono handler that validates its input, then runs the route's own handler. */
export interface RouteDef extends EndpointInfo {
  handler: Handler<AppEnv>;
}

type Schema = v.GenericSchema | undefined;
/** What a declared schema hands the handler; an undeclared part is `undefined`. */
type Parsed<S extends Schema> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

/** The validated input of one request, typed by the route's declared schemas. */
export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/**
 * One table entry as written in `http/routes/*`: the endpoint, how its input is read, and the handler of typed input.
 */
export interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema>
  extends Omit<EndpointInfo, "params" | "query" | "body"> {
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A per-client limit counted before the input is read, so a flood of malformed requests is limited too. Every GET
   * is under the `read` limit anyway (`mountRoutes`); POST routes name theirs.
   */
  limit?: LimitName;
  /** An empty body reads as `{}` (operator routes, where an empty POST means "the defaults"). */
  emptyBodyIsDefaults?: boolean;
  /** Rewrites the parsed body before its schema judges it (`parse-input.ts`). */
  reshapeBody?: (value: unknown) => unknown;
  /**
   * Any Content-Type is read as JSON, as `/verify` and `/settle` always have (no x402 client that labels its body
   * differently is turned away).
   */
  anyContentType?: boolean;
  /** Answers an invalid input in the route's own wire shape instead of the standard 400 (`message` names the field). */
  invalidInput?: (c: AppContext, message: string, reason: ErrorReason) => Response | Promise<Response>;
  handler: (c: AppContext, input: RouteInput<P, Q, B>) => Response | Promise<Response>;
}

/**
 * One route of a table. The declared schemas are applied here, once, in a fixed order (operator token, rate limit,
 * path, query, body), and the handler receives their typed output; a bad input is a 400 JSON error naming the field
 * (`parse-input.ts`). A request reads only the parts its route declares.
 */
export function route<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  spec: RouteSpec<P, Q, B>,
): RouteDef {
  const { handler, limit, emptyBodyIsDefaults, anyContentType, invalidInput, reshapeBody, ...endpoint } = spec;
  const { params, query, body, auth, networkAt } = endpoint;
  // A path parameter reaches a handler only through a schema: a table that forgets one fails when it is built.
  if (!params && endpoint.path.includes("/:"))
    throw new Error(`route ${endpoint.key}: ${endpoint.path} has path parameters but no params schema`);
  const bodyOptions = {
    emptyBodyIsDefaults: emptyBodyIsDefaults ?? false,
    anyContentType: anyContentType ?? false,
    reshape: reshapeBody,
  };
  const run: Handler<AppEnv> = async (c) => {
    if (auth === "bearer") requireOperatorBearer(c);
    if (limit) await enforceRateLimit(c, limit, clientKeyOf(c));
    let input: RouteInput<P, Q, B>;
    try {
      // The network check reads the parsed body; the body's schema then judges that same parse (no second JSON.parse).
      const parsedText = networkAt ? await refuseForeignNetwork(c, networkAt) : undefined;
      input = {
        params: (params ? validate(params, c.req.param(), "path") : undefined) as Parsed<P>,
        query: (query ? validate(query, c.req.query(), "query") : undefined) as Parsed<Q>,
        body: (body ? await readJsonBody(c, body, bodyOptions, parsedText) : undefined) as Parsed<B>,
      };
    } catch (error) {
      if (invalidInput && isFacilitatorError(error) && error.code === "BAD_REQUEST")
        return invalidInput(c, error.message, error.reason);
      throw error;
    }
    return handler(c, input);
  };
  return { ...endpoint, reasons: reasonsOf(spec), handler: run };
}

/** Every reason the route may answer with: those of the way its input is read (below), then the handler's own. */
function reasonsOf(spec: RouteSpec<Schema, Schema, Schema>): ErrorReason[] {
  const reasons: ErrorReason[] = [];
  if (spec.auth === "bearer") reasons.push("unauthorized", "service_unavailable");
  if (spec.auth === "wallet-signature") reasons.push(...SIGNED_CHALLENGE_REASONS);
  if (spec.limit || spec.method === "GET") reasons.push("rate_limited");
  if (spec.params || spec.query || spec.body) reasons.push("invalid_request");
  if (spec.body) reasons.push("invalid_json", "payload_too_large");
  if (spec.body && !spec.anyContentType) reasons.push("unsupported_media_type");
  if (spec.networkAt) reasons.push("invalid_network");
  reasons.push(...(spec.reasons ?? []), "internal_error", "facilitator_upstream_error");
  return [...new Set(reasons)];
}

/**
 * The network check of `networkAt`, on the raw body (a malformed body is left to the body reader to name). Returns the
 * parse, for the body reader.
 */
async function refuseForeignNetwork(c: AppContext, paths: readonly (readonly string[])[]): Promise<JsonTextResult> {
  const parsed = parseJsonText(await c.req.text());
  if (!parsed.ok) return parsed;
  for (const path of paths) {
    const message = foreignNetworkMessage(c.var.config, path.join("."), valueAt(parsed.value, path));
    if (message !== null) throw refused("invalid_network", message);
  }
  return parsed;
}

/**
 * Registers routes under the API prefix; listing and serving come from the same table, so nothing is advertised that
 * is not served. Every GET is an anonymous read (chain, D1 or KV) and goes under the per-client read limit here, so a
 * new GET route cannot be added without one; POST routes name their own limits (builders, verify/settle).
 */
export function mountRoutes(app: Hono<AppEnv>, routes: readonly RouteDef[]): void {
  for (const route of routes)
    app.on(
      route.method,
      API_PREFIX + route.path,
      route.method === "GET" ? withReadRateLimit(route.handler) : route.handler,
    );
}

/** Public form of a path: `{wallet}` instead of Hono's `:wallet`. */
export function publicPath(path: string): string {
  return API_PREFIX + path.replace(/:([A-Za-z]+)/g, "{$1}");
}
