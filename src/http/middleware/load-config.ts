import type { MiddlewareHandler } from "hono";
import { getConfig } from "../../platform/config/load-config";
import type { AppEnv } from "../context";

/** Loads (or takes from the isolate cache) the validated config; an invalid config fails every route with 500. */
export const loadConfigMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("config", await getConfig(c.env));
  await next();
};
