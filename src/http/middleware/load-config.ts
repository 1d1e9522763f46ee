import type { MiddlewareHandler } from "hono";
import type { ConfigOfRails } from "../../platform/config/load-config";
import type { AppEnv } from "../context";

/**
 * Loads (or takes from the isolate cache) the validated config of the app's rails; an invalid config fails every route
 * with 500.
 */
export function loadConfigMiddleware(config: ConfigOfRails): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("config", await config.get(c.env));
    await next();
  };
}
