import { describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../../../../src/http/middleware/rate-limit";
import { fundedBuyer } from "../../../support/workerd/chain";
import { enrichedLine, signedPaymentBody, USDC } from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * Issue 8: limits on the Workers Rate Limiting bindings of wrangler.toml (run by workerd here, as in production).
 * Each test uses client addresses of its own; a limiter window may turn over mid-test, so bursts are sized to
 * exceed the limit by far and the assertions allow for one turnover. Bursts go through app.request with the real
 * bindings (SELF.fetch slows down over hundreds of requests in the test pool, which would stretch a burst past
 * a window).
 */
const post = (path: string, headers: Record<string, string>, body: string) =>
  callWithEnv({}, path, { method: "POST", headers, body });
const json = { "Content-Type": "application/json" };

/**
 * Sends `concurrency` requests at a time until one is refused, at most `max` in all. The bindings count in fixed
 * windows, so a burst that straddles a window boundary needs up to twice the limit before the first refusal.
 */
async function burstUntilLimited(
  max: number,
  concurrency: number,
  send: () => Promise<{ status: number; headers: Headers; body: any }>,
) {
  const answers: { status: number; headers: Headers; body: any }[] = [];
  while (answers.length < max && !answers.some((a) => a.status === 429)) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, max - answers.length) }, send))));
  }
  return answers;
}

describe("rate limits (Workers Rate Limiting bindings)", () => {
  it(
    "every builder shares the build limit per client: 16-at-a-time bursts are limited, 429 carries " + "Retry-After",
    async () => {
      const client = `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`;
      const headers = { ...json, "CF-Connecting-IP": client };
      const limit = RATE_LIMITS.build.limit;
      // Alternate the exact builder and seller provisioning: both count against the one build limit.
      let n = 0;
      const answers = await burstUntilLimited(3 * limit, 16, () =>
        post(n++ % 2 === 0 ? "/build-exact-payment-tx" : "/sellers/provision-tx", headers, "{}"),
      );
      const admitted = answers.filter((a) => a.status !== 429).length;
      expect(admitted).toBeGreaterThanOrEqual(limit);
      expect(admitted).toBeLessThanOrEqual(2 * limit + 16); // at most one window turnover during the burst
      const limited = answers.find((a) => a.status === 429)!;
      expect(limited.body).toMatchObject({ code: "RATE_LIMITED", correlationId: expect.any(String) });
      expect(Number(limited.headers.get("Retry-After"))).toBe(RATE_LIMITS.build.periodSeconds);
      expect(limited.body.retryAfterSeconds).toBe(RATE_LIMITS.build.periodSeconds);

      // Another client is not affected.
      const other = await call("/build-exact-payment-tx", {
        method: "POST",
        headers: { ...json, "CF-Connecting-IP": crypto.randomUUID() },
        body: "{}",
      });
      expect(other.status).toBe(400);
    },
  );

  it("/verify and /settle are limited per client address, before the body is even read", async () => {
    const headers = { ...json, "CF-Connecting-IP": `client-${crypto.randomUUID()}` };
    const limit = RATE_LIMITS.paymentClient.limit;
    let n = 0;
    const answers = await burstUntilLimited(3 * limit, 32, () =>
      post(n++ % 2 === 0 ? "/verify" : "/settle", headers, "x"),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 429).length).toBeLessThanOrEqual(2 * limit + 32);
    expect(limited[0]!.headers.get("Retry-After")).toBe(String(RATE_LIMITS.paymentClient.periodSeconds));
  });

  it("/verify and /settle are limited per paying wallet, whatever addresses it comes from", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const body = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
    const limit = RATE_LIMITS.paymentPayer.limit;
    const answers = await burstUntilLimited(3 * limit, 16, () =>
      post("/verify", { ...json, "CF-Connecting-IP": crypto.randomUUID() }, JSON.stringify(body)),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    // Another payer is not affected.
    const other = await signedPaymentBody(await fundedBuyer(5_000_000), await enrichedLine(USDC, "100000"));
    expect(
      (await call("/verify", { method: "POST", json: other, headers: { "CF-Connecting-IP": crypto.randomUUID() } }))
        .status,
    ).toBe(200);
  });
});
