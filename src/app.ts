import { Hono } from "hono";
import type { AppEnv } from "./http/context";
import { correlationId } from "./http/middleware/correlation-id";
import { standardHeaders } from "./http/middleware/standard-headers";
import { loadConfigMiddleware } from "./http/middleware/load-config";
import { requestBodyLimit } from "./http/middleware/body-limit";
import { onError, onNotFound } from "./http/error-handler";
import { mountRoutes, type RouteDef } from "./http/route-def";
import { discoveryRoutes } from "./http/routes/discovery";
import { paymentRoutes } from "./http/routes/payments";
import { mountStaticRoutes } from "./http/routes/static";
import { mountResourceIndex } from "./http/routes/resource-index";
import { exactBuilderRoutes } from "./http/routes/exact-builders";
import { escrowBuilderRoutes } from "./http/routes/escrow-builders";
import { sellerRoutes } from "./http/routes/sellers";
import { directoryRoutes } from "./http/routes/directory";
import { operatorRoutes } from "./http/routes/operator";
import { resourceRoutes } from "./http/routes/resources";
import { settlementRoutes } from "./http/routes/settlements";
import { feeQuoteRoutes } from "./http/routes/fee-quote";
import { mountMcp } from "./mcp/route";

/** The whole HTTP surface: middleware in order, every route group, one error handler. */
export function buildApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const endpoints = () => routes;
  const routes: RouteDef[] = [...discoveryRoutes(endpoints), ...paymentRoutes(), ...settlementRoutes(), ...exactBuilderRoutes(), ...escrowBuilderRoutes(), ...sellerRoutes(), ...directoryRoutes(), ...operatorRoutes(), ...resourceRoutes(), ...feeQuoteRoutes()];

  app.use("*", correlationId, standardHeaders, loadConfigMiddleware, requestBodyLimit);
  mountStaticRoutes(app, endpoints);
  mountResourceIndex(app);
  mountRoutes(app, routes);
  mountMcp(app, endpoints);
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
