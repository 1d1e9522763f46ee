import type { ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { type ErrorCode, FacilitatorError, isFacilitatorError } from "../platform/errors/catalogue";
import { log } from "../platform/observability/log";
import type { AppContext, AppEnv } from "./context";

/**
 * The wire error body: `{ error, code, reason, correlationId }` plus any route-specific fields (docs/wire-notes.md
 * "Error body").
 */
export function errorResponse(c: AppContext, error: FacilitatorError): Response {
  const body = {
    ...error.fields,
    error: error.message,
    code: error.code,
    reason: error.reason,
    correlationId: c.get("correlationId") ?? null,
  };
  return c.json(body, error.status, error.headers);
}

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (isFacilitatorError(err)) {
    if (err.status >= 500)
      log("error", "request_failed", { correlationId: c.get("correlationId"), code: err.code, message: err.message });
    return errorResponse(c, err);
  }
  if (err instanceof HTTPException) {
    return errorResponse(c, new FacilitatorError(codeForStatus(err.status), err.message || "Request rejected"));
  }
  // A bug: log what happened, answer without internals.
  log("error", "unhandled_error", { correlationId: c.get("correlationId"), error: err, path: c.req.path });
  return errorResponse(c, new FacilitatorError("INTERNAL_SERVER_ERROR", "Internal error"));
};

export const onNotFound: NotFoundHandler<AppEnv> = (c) =>
  errorResponse(c, new FacilitatorError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`));

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return "UNAUTHORIZED";
  if (status === 403) return "FORBIDDEN";
  if (status === 404) return "NOT_FOUND";
  if (status === 413) return "PAYLOAD_TOO_LARGE";
  if (status >= 500) return "INTERNAL_SERVER_ERROR";
  return "BAD_REQUEST";
}
