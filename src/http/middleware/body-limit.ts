import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { FacilitatorError } from "../../platform/errors/catalogue";
import type { AppEnv } from "../context";

/** One hono bodyLimit per configured size (the config is per isolate), built once instead of on every request. */
const limiters = new Map<number, MiddlewareHandler>();

/** Refuses request bodies above the configured size with 413, whether or not Content-Length is honest. */
export const requestBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const maxSize = c.var.config.limits.maxRequestBodyBytes;
  let limiter = limiters.get(maxSize);
  if (!limiter) {
    limiter = bodyLimit({
      maxSize,
      onError: () => {
        throw new FacilitatorError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${maxSize} bytes`);
      },
    });
    limiters.set(maxSize, limiter);
  }
  return limiter(c, next);
};
