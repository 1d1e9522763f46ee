import type { Handler } from "hono";
import { FacilitatorError } from "../../platform/errors/catalogue";
import { log } from "../../platform/observability/log";
import type { AppContext, AppEnv } from "../context";

/**
 * Request limits on Cloudflare's Workers Rate Limiting bindings (wrangler.toml `[[ratelimits]]`), which count
 * atomically per key, unlike read-compare-write counters in KV. The counters are kept per Cloudflare location,
 * so a client spread over many locations gets more in total: the limits are a brake on abuse, not exact quotas.
 * Limits and periods are the bindings' own settings (wrangler.toml), identical in every environment.
 */
export const RATE_LIMITS = {
  /** Every transaction builder (exact, escrow, refund, seller provisioning), per client IP. */
  build: { binding: "RATE_LIMIT_BUILD", limit: 60, periodSeconds: 60, what: "build" },
  /** /verify and /settle, per client IP. */
  paymentClient: { binding: "RATE_LIMIT_PAYMENT_CLIENT", limit: 600, periodSeconds: 60, what: "verify/settle" },
  /** /verify and /settle, per paying wallet (whichever IPs it comes from). */
  paymentPayer: { binding: "RATE_LIMIT_PAYMENT_PAYER", limit: 120, periodSeconds: 60, what: "verify/settle per payer" },
  /**
   * Every GET of the API (reads of the chain, D1 or KV: /health, /fee-quote, previews, the directory, challenges, …),
   * /dist/resource-index.json and each POST /mcp, per client IP. A page load of `/` makes 3; an agent paging the
   * directory at 5 requests a second stays under it. MCP tool calls re-enter the app and count again on their route.
   */
  read: { binding: "RATE_LIMIT_READ", limit: 300, periodSeconds: 60, what: "read" },
} as const;

export type LimitName = keyof typeof RATE_LIMITS;

/**
 * The client as Cloudflare's edge sees it: the edge sets `CF-Connecting-IP` over whatever a client sends. Local serving
 * strips a caller's (scripts/lib/local-edge.ts), so every local caller is the one client `local`.
 */
export function clientKeyOf(c: AppContext): string {
  return c.req.header("CF-Connecting-IP")?.trim() || "local";
}

/** Counts this request against `name` for `key`; throws 429 `RATE_LIMITED` with `Retry-After` when over the limit. */
export async function enforceRateLimit(c: AppContext, name: LimitName, key: string): Promise<void> {
  if (!c.var.config.limits.rateLimitsEnabled) return;
  const spec = RATE_LIMITS[name];
  const limiter = c.env[spec.binding] as RateLimit | undefined;
  if (!limiter) return;
  let allowed: boolean;
  try {
    allowed = (await limiter.limit({ key: `${name}:${key}` })).success;
  } catch (error) {
    // The limiter is a brake, not a gate: if it fails, the request goes on (and the failure is visible).
    log("warn", "rate_limit_unavailable", { correlationId: c.get("correlationId"), limit: name, error });
    return;
  }
  if (allowed) return;
  // The binding does not say when its window resets; one full period is the longest a client must wait.
  const retryAfterSeconds = spec.periodSeconds;
  throw new FacilitatorError(
    "RATE_LIMITED",
    `Rate limit exceeded: at most ` +
      `about ${spec.limit} ${spec.what} requests per ${spec.periodSeconds} s; retry after ${retryAfterSeconds} s`,
    { headers: { "Retry-After": String(retryAfterSeconds) }, fields: { retryAfterSeconds, limit: spec.limit } },
  );
}

/** The per-client read limit (every GET of the API, the resource index, each /mcp POST). */
export function withReadRateLimit(handler: Handler<AppEnv>): Handler<AppEnv> {
  return async (c, next) => {
    await enforceRateLimit(c, "read", clientKeyOf(c));
    return handler(c, next);
  };
}
