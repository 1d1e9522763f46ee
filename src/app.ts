import { Hono } from "hono";
import { apiRoutes } from "./http/api-routes";
import { API_PREFIX, type AppEnv } from "./http/context";
import { onError, onNotFound } from "./http/error-handler";
import { mountMcp } from "./http/mcp/route";
import { requestBodyLimit } from "./http/middleware/body-limit";
import { correlationId } from "./http/middleware/correlation-id";
import { loadConfigMiddleware } from "./http/middleware/load-config";
import { standardHeaders } from "./http/middleware/standard-headers";
import { mountRoutes } from "./http/route-def";
import { paymentRoutes } from "./http/routes/payments";
import { mountResourceIndex } from "./http/routes/resource-index";
import { mountStaticRoutes } from "./http/routes/static";
import { type ConfigOfRails, configOf } from "./platform/config/load-config";
import type { RailModule } from "./rails/rail";
import { RAILS } from "./rails/registry";

/**
 * The whole HTTP surface: middleware in order, every route group, one error handler.
 *
 * POST /verify and /settle, the hot paths, are answered by a second app holding only those two routes, with the same
 * middleware and error handling. Some of the API's paths (a static segment beside a parameter, e.g.
 * /resources/register/challenge and /resources/:id) make Hono fall back from its RegExpRouter to the slower
 * TrieRouter for the whole app; the payment app keeps the fast one (profiled: ~10% of a /verify's CPU).
 *
 * `rails`: the rails every rail-built part of the app serves (/verify, /settle, the configuration, the route table's
 * rail slots, the self-description); the Worker passes the registry's `RAILS`, a test may add a fixture rail.
 */
export function buildApp(rails: readonly RailModule[] = RAILS): Hono<AppEnv> {
  const endpoints = () => routes;
  const routes = apiRoutes(endpoints, rails);

  const config = configOf(rails);
  const app = withMiddleware(new Hono<AppEnv>(), config);
  mountStaticRoutes(app, endpoints, rails);
  mountResourceIndex(app);
  mountRoutes(app, routes);
  mountMcp(app, endpoints);
  withErrorHandling(app);

  const paymentApp = withMiddleware(new Hono<AppEnv>(), config);
  mountRoutes(paymentApp, paymentRoutes(rails));
  withErrorHandling(paymentApp);

  const fetchAny = app.fetch;
  app.fetch = (request, env, ctx) =>
    request.method === "POST" && PAYMENT_PATHS.has(pathOf(request.url))
      ? paymentApp.fetch(request, env, ctx)
      : fetchAny(request, env, ctx);
  return app;
}

const PAYMENT_PATHS = new Set([`${API_PREFIX}/verify`, `${API_PREFIX}/settle`]);

function withMiddleware(app: Hono<AppEnv>, config: ConfigOfRails): Hono<AppEnv> {
  return app.use("*", correlationId, standardHeaders, loadConfigMiddleware(config), requestBodyLimit);
}

function withErrorHandling(app: Hono<AppEnv>): void {
  app.notFound(onNotFound);
  app.onError(onError);
}

/** The path of an absolute request URL, without parsing all of it (a query string ends it). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}
