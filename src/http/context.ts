import type { Context } from "hono";
import type { Env } from "../env";
import type { Config } from "../platform/config/load-config";

/** Hono environment shared by every route: bindings plus what the middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    correlationId: string;
    config: Config;
  };
}

export type AppContext = Context<AppEnv>;

export const API_PREFIX = "/api/v1/facilitator";
export const API_VERSION = "1.1.0";
