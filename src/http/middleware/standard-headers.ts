import type { MiddlewareHandler } from "hono";
import { API_VERSION, type AppEnv } from "../context";

export const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers":
    "Content-Type, Authorization, X-Correlation-ID, X-API-Version, PAYMENT-SIGNATURE, PAYMENT-RESPONSE",
  "Access-Control-Expose-Headers": "X-Correlation-ID, X-API-Version, PAYMENT-RESPONSE, Retry-After, ETag",
};

/**
 * CORS on every response, `OPTIONS` preflight answered with 204 before any other work (docs/wire-notes.md "Headers and
 * CORS").
 */
export const standardHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: { ...CORS_HEADERS, "Access-Control-Max-Age": "86400", "X-API-Version": API_VERSION },
    });
  }
  await next();
  for (const [name, value] of Object.entries(CORS_HEADERS)) c.res.headers.set(name, value);
  c.res.headers.set("X-API-Version", API_VERSION);
};
