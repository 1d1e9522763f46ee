import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { FacilitatorError } from "../../errors/catalogue";
import type { AppEnv } from "../context";

/** Refuses request bodies above the configured size with 413, whether or not Content-Length is honest. */
export const requestBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const maxSize = c.var.config.limits.maxRequestBodyBytes;
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new FacilitatorError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${maxSize} bytes`);
    },
  })(c, next);
};
