import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

/** Accept a caller's correlation id only if it is short and plain, so it is safe to echo and log. */
const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

export function correlationIdOf(headerValue: string | undefined): string {
  return callerCorrelationIdOf(headerValue) ?? crypto.randomUUID();
}

/** The caller's own correlation id, or null when it sent none (or one we would not echo). */
export function callerCorrelationIdOf(headerValue: string | undefined): string | null {
  return headerValue && SAFE_CORRELATION_ID.test(headerValue) ? headerValue : null;
}

/** Echoes `X-Correlation-ID` or mints one, and exposes it to handlers and the error handler. */
export const correlationId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = correlationIdOf(c.req.header("X-Correlation-ID"));
  c.set("correlationId", id);
  await next();
  c.res.headers.set("X-Correlation-ID", id);
};
