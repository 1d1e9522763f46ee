import type { RejectionReason } from "../../x402/rejection-reasons";

/**
 * The one error vocabulary of the service: every failure is a coded error with a fixed HTTP status and a stable
 * machine-readable reason. Route code throws `FacilitatorError`; the root error handler turns it into the wire body
 * `{ error, code, reason, correlationId }` (docs/wire-notes.md "Error body"). `code` says the kind of failure (and the
 * status), `reason` says which mistake, `error` is the sentence a person acts on.
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
  /**
   * A rail (or one `payTo` form of it) this deployment's configuration leaves off
   * (src/platform/config/rail-switches.ts).
   */
  RAIL_NOT_ENABLED: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Reasons of a request refused before (or besides) any payment is judged, with what each means. A payment refusal
 * carries its x402 reason instead (`RejectionReason`, src/x402/rejection-reasons.ts): a builder refuses a line for the
 * same reason `/verify` would refuse the payment made from it.
 */
export const REQUEST_REASONS = {
  invalid_request: "a field of the path, query or body is missing, malformed or out of range; `error` names it",
  invalid_json: "the body is not JSON",
  unsupported_media_type: "the body is not sent as JSON",
  payload_too_large: "the body is larger than this route accepts",
  not_found: "no such route, or the record asked for does not exist",
  method_not_allowed: "the route exists for another HTTP method",
  unauthorized: "a credential (operator token or wallet signature) is missing or wrong",
  forbidden: "the credential is valid but does not cover this action",
  challenge_terms_mismatch:
    "the wallet signed a challenge issued for other registration terms (asset, payTo form, discovery) than the body " +
    "sends",
  challenge_terms_required:
    "this registration needs a challenge issued for its terms (POST /sellers/{wallet}/register/challenge); a plain " +
    "one does not cover it",
  conflict: "the request conflicts with a record's current state",
  rate_limited: "too many requests from this client; wait for Retry-After",
  asset_not_found: "the mint does not exist on this network, or is not a token mint",
  payer_account_unusable: "the payer's account cannot send this payment (frozen, not initialised, not a wallet)",
  merchant_wallet_unresolved:
    "the seller's wallet cannot be worked out from the line (no merchantWallet, and no activated vault at payTo)",
  no_line_for_facilitator: "none of the 402 body's lines is for this facilitator's network",
  rail_not_configured: "the rail is not set up on this deployment",
  resource_limit_reached: "the seller has registered as many resources as allowed",
  origin_not_proven: "the resource's origin did not prove it is the seller's",
  not_implemented: "this deployment cannot do that",
  internal_error: "a fault of the facilitator; the correlation id finds it in the logs",
  config_invalid: "the deployment's configuration is invalid",
  upstream_error: "an upstream service failed",
  facilitator_upstream_error: "the Solana RPC failed or timed out; try again",
  service_unavailable: "the facilitator cannot serve this now (a missing secret, a paused rail, a spent budget)",
} as const;
export type RequestReason = keyof typeof REQUEST_REASONS;
/** Every `reason` an error body may carry: the request reasons above and the x402 payment reasons. */
export type ErrorReason = RequestReason | RejectionReason;

/** The reason of an error thrown without a more specific one. */
export const DEFAULT_REASON: Record<ErrorCode, ErrorReason> = {
  BAD_REQUEST: "invalid_request",
  PAYMENT_INVALID: "invalid_payload",
  BLOCKHASH_EXPIRED: "blockhash_expired",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "forbidden",
  NOT_FOUND: "not_found",
  METHOD_NOT_ALLOWED: "method_not_allowed",
  CONFLICT: "conflict",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  RATE_LIMITED: "rate_limited",
  INTERNAL_SERVER_ERROR: "internal_error",
  CONFIG_INVALID: "config_invalid",
  NOT_IMPLEMENTED: "not_implemented",
  BAD_GATEWAY: "upstream_error",
  FACILITATOR_UPSTREAM: "facilitator_upstream_error",
  SERVICE_UNAVAILABLE: "service_unavailable",
  RAIL_NOT_ENABLED: "rail_not_enabled",
};
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export class FacilitatorError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  /** The stable machine-readable reason (`REQUEST_REASONS` or an x402 `RejectionReason`). */
  readonly reason: ErrorReason;
  /** Extra top-level fields merged into the response body (e.g. x402 `invalidReason`). */
  readonly fields: Record<string, unknown>;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      reason?: ErrorReason;
      fields?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FacilitatorError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.reason = options.reason ?? DEFAULT_REASON[code];
    this.fields = options.fields ?? {};
    this.headers = options.headers ?? {};
  }
}

/**
 * A 400 for a malformed request: `message` starts with the field it is about ("accepted.amount: must be …"), which
 * the body repeats as `field`, so a program can tell the many `invalid_request` refusals apart.
 */
export function badRequest(message: string, fields?: Record<string, unknown>): FacilitatorError {
  const field = FIELD_PREFIX.exec(message)?.[1];
  return new FacilitatorError("BAD_REQUEST", message, { fields: field ? { field, ...fields } : fields });
}

/** "accepts[0].payTo: …", "wallet: …": a dotted path (with indexes) before the first colon. */
const FIELD_PREFIX = /^([A-Za-z_$][\w$]*(?:\[\d+\]|\.[A-Za-z_$][\w$]*)*): /;

/** A 400 for a specific mistake: `reason` is what a program reads, `message` what a person reads. */
export function refused(reason: ErrorReason, message: string, fields?: Record<string, unknown>): FacilitatorError {
  return new FacilitatorError("BAD_REQUEST", message, { reason, fields });
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
