import type { Handler } from "hono";
import { FacilitatorError } from "../../errors/catalogue";
import { log } from "../../observability/log";
import type { AppContext, AppEnv } from "../context";

/**
 * Per-client request limits over fixed 60-second windows, counted in KV.
 *
 * KV is eventually consistent and has no atomic increment, so concurrent requests (or requests landing on
 * other edge locations) can under-count: the limit is a brake on abuse, not an exact quota. That is the
 * design's rule for KV ("loss-tolerant"): a KV failure lets the request through rather than failing it.
 */

export const RATE_LIMIT_WINDOW_SECONDS = 60;
/** KV's minimum TTL is 60 s; two windows keep the current counter alive until its window has passed. */
const COUNTER_TTL_SECONDS = 2 * RATE_LIMIT_WINDOW_SECONDS;

/** The client as Cloudflare's edge sees it; `CF-Connecting-IP` cannot be forged through the edge. Local runs have none. */
export function clientKeyOf(c: AppContext): string {
  return c.req.header("CF-Connecting-IP")?.trim() || "local";
}

/** Counts this request against `bucket` for the client; throws 429 `RATE_LIMITED` with `Retry-After` when over the limit. */
export async function enforceRateLimit(c: AppContext, bucket: string, limitPerWindow: number): Promise<void> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const window = Math.floor(nowSeconds / RATE_LIMIT_WINDOW_SECONDS);
  const key = `ratelimit:${bucket}:${clientKeyOf(c)}:${window}`;

  let count: number;
  try {
    count = Number((await c.env.KV.get(key)) ?? "0") || 0;
  } catch (error) {
    log("warn", "rate_limit_unavailable", { correlationId: c.get("correlationId"), bucket, error });
    return;
  }

  if (count >= limitPerWindow) {
    const retryAfterSeconds = Math.max(1, (window + 1) * RATE_LIMIT_WINDOW_SECONDS - nowSeconds);
    throw new FacilitatorError(
      "RATE_LIMITED",
      `Rate limit exceeded: at most ${limitPerWindow} ${bucket} requests per ${RATE_LIMIT_WINDOW_SECONDS} s per client; retry after ${retryAfterSeconds} s`,
      { headers: { "Retry-After": String(retryAfterSeconds) }, fields: { retryAfterSeconds, limit: limitPerWindow } },
    );
  }

  const write = c.env.KV.put(key, String(count + 1), { expirationTtl: COUNTER_TTL_SECONDS }).catch((error: unknown) => {
    // KV allows about one write per second per key; a dropped increment only makes the limit more lenient.
    log("warn", "rate_limit_write_failed", { bucket, error });
  });
  // Answer without waiting for the write when the runtime can finish it after the response.
  if (!deferToExecutionContext(c, write)) await write;
}

/** The build-endpoint limit (`SVC_BUILD_RATE_LIMIT_PER_MINUTE`), shared by every transaction builder. */
export function withBuildRateLimit(handler: Handler<AppEnv>): Handler<AppEnv> {
  return async (c, next) => {
    await enforceRateLimit(c, "build", c.var.config.limits.buildRateLimitPerMinute);
    return handler(c, next);
  };
}

function deferToExecutionContext(c: AppContext, work: Promise<unknown>): boolean {
  try {
    c.executionCtx.waitUntil(work);
    return true;
  } catch {
    return false; // no ExecutionContext (e.g. app.request in tests)
  }
}
