import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { CORE_JOBS_CRON, runScheduled } from "../../../src/jobs/scheduled";
import { RAILS } from "../../../src/rails/registry";
import { fundedBuyer } from "../../support/workerd/chain";
import { enrichedLine, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../support/workerd/worker-http";

/** Issue 8 item 3: no unbounded writes from anonymous callers; old rows are purged on a schedule. */
async function attemptRows(correlationId: string): Promise<Record<string, unknown>[]> {
  // Settle rows are written after the response; give them a moment before concluding anything.
  await new Promise((resolve) => setTimeout(resolve, 150));
  return (await env.DB.prepare("SELECT * FROM payment_attempts WHERE correlation_id = ?").bind(correlationId).all())
    .results;
}

describe("anonymous callers cannot fill the database", () => {
  it(
    "junk bodies on /verify and /settle write no row; a valid /verify writes none either; a parsed /settle writes " +
      "one",
    async () => {
      const correlationId = `junk-${crypto.randomUUID()}`;
      const headers = {
        "Content-Type": "application/json",
        "X-Correlation-ID": correlationId,
        "CF-Connecting-IP": crypto.randomUUID(),
      };
      for (const body of ["x", "{}", JSON.stringify({ x402Version: 2 }), "[]"]) {
        expect((await call("/verify", { method: "POST", headers, body })).status).toBe(400);
        expect((await call("/settle", { method: "POST", headers, body })).status).toBe(400);
      }
      const buyer = await fundedBuyer(5_000_000);
      const payment = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
      expect((await call("/verify", { method: "POST", headers, json: payment })).status).toBe(200);
      expect(await attemptRows(correlationId)).toEqual([]);

      expect((await call("/settle", { method: "POST", headers, json: payment })).body.success).toBe(true);
      const rows = await attemptRows(correlationId);
      expect(rows.map((r) => [r.kind, r.outcome])).toEqual([["settle", "settled"]]);
    },
  );

  it("verify outcomes go to Workers Analytics Engine instead", async () => {
    // Analytics Engine has no local read API, so a recording stand-in for the TELEMETRY binding observes the writes.
    const points: AnalyticsEngineDataPoint[] = [];
    const recorder: AnalyticsEngineDataset = { writeDataPoint: (point) => void points.push(point ?? {}) };
    const response = await callWithEnv({ TELEMETRY: recorder }, "/verify", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "x",
    });
    expect(response.status).toBe(400);
    expect(points).toHaveLength(1);
    expect(points[0]!.indexes).toEqual(["verify"]);
    expect(points[0]!.blobs?.slice(0, 3)).toEqual(["verify", "invalid", "invalid_payload"]);
    expect(points[0]!.doubles?.[0]).toBeGreaterThanOrEqual(0);
  });

  it(
    "the hourly retention job purges old settle attempts and long-expired consumed challenges, and keeps the " + "rest",
    async () => {
      const now = Date.now();
      const tag = crypto.randomUUID();
      const old = now - 91 * 86_400_000;
      const insertAttempt = (startedAtMs: number, id: string) =>
        env.DB.prepare(
          "INSERT INTO payment_attempts (kind, correlation_id, outcome, started_at_ms, duration_ms) VALUES " +
            "('settle', " +
            "?, 'settled', ?, 1)",
        )
          .bind(id, startedAtMs)
          .run();
      await insertAttempt(old, `${tag}-old`);
      await insertAttempt(now - 86_400_000, `${tag}-recent`);
      const insertChallenge = (expiresAtMs: number, nonce: string) =>
        env.DB.prepare(
          "INSERT INTO consumed_challenges (nonce, wallet, action, expires_at_ms, consumed_at_ms) VALUES (?, 'w', " +
            "'seller:register', ?, ?)",
        )
          .bind(nonce, expiresAtMs, expiresAtMs - 1)
          .run();
      await insertChallenge(now - 2 * 86_400_000, `${tag}-expired`);
      await insertChallenge(now + 600_000, `${tag}-live`);

      const outcome = await runScheduled(RAILS, CORE_JOBS_CRON, env as unknown as Env);
      expect(outcome.results).toContainEqual({ name: "retention", ok: true });

      const attempts = (
        await env.DB.prepare("SELECT correlation_id FROM payment_attempts WHERE correlation_id LIKE ?")
          .bind(`${tag}%`)
          .all()
      ).results;
      expect(attempts.map((r) => r.correlation_id)).toEqual([`${tag}-recent`]);
      const challenges = (
        await env.DB.prepare("SELECT nonce FROM consumed_challenges WHERE nonce LIKE ?").bind(`${tag}%`).all()
      ).results;
      expect(challenges.map((r) => r.nonce)).toEqual([`${tag}-live`]);
    },
  );
});
