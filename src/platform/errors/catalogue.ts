/**
 * The one error vocabulary of the service: every failure is a coded error with a fixed HTTP status.
 * Route code throws `FacilitatorError`; the root error handler turns it into the wire body
 * `{ error, code, correlationId }` (docs/wire-notes.md "Error body").
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  PAYMENT_INVALID: 400,
  BLOCKHASH_EXPIRED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  CONFIG_INVALID: 500,
  NOT_IMPLEMENTED: 501,
  BAD_GATEWAY: 502,
  FACILITATOR_UPSTREAM: 502,
  SERVICE_UNAVAILABLE: 503,
  /** A rail (or one `payTo` form of it) this deployment's configuration leaves off (src/platform/config/rail-switches.ts). */
  RAIL_NOT_ENABLED: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export class FacilitatorError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  /** Extra top-level fields merged into the response body (e.g. x402 `invalidReason`). */
  readonly fields: Record<string, unknown>;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fields?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FacilitatorError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.fields = options.fields ?? {};
    this.headers = options.headers ?? {};
  }
}

export function badRequest(message: string, fields?: Record<string, unknown>): FacilitatorError {
  return new FacilitatorError("BAD_REQUEST", message, { fields });
}

export function notFound(message: string): FacilitatorError {
  return new FacilitatorError("NOT_FOUND", message);
}

export function upstreamError(message: string, cause?: unknown): FacilitatorError {
  return new FacilitatorError("FACILITATOR_UPSTREAM", message, { cause });
}

export function isFacilitatorError(value: unknown): value is FacilitatorError {
  return value instanceof FacilitatorError;
}
