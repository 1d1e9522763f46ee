import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { CORE_JOBS_CRON, RAIL_JOBS_CRON, runScheduled } from "../../../src/jobs/scheduled";
import { maxRailsPerRun } from "../../../src/rails/exact/sweep/budget";
import { RAILS } from "../../../src/rails/registry";
import { callWithEnv } from "../../support/workerd/worker-http";

describe("scheduled (Cron Triggers)", () => {
  it("maps the wrangler.toml cron expressions to their jobs", async () => {
    const sweep = await runScheduled(RAILS, RAIL_JOBS_CRON, env as unknown as Env);
    const probe = await runScheduled(RAILS, CORE_JOBS_CRON, env as unknown as Env);
    expect(sweep.job).toBe("sweep+escrow-keeper+upto-keeper");
    expect(probe.job).toBe("retention+probe-resources+search-index-merge");
    expect((await runScheduled(RAILS, "0 0 1 1 *", env as unknown as Env)).job).toBe("unknown");
  });

  it(
    "on Workers Free (SVC_WORKERS_PLAN=free) each invocation runs one job of its trigger, the next invocation the " +
      "next one",
    async () => {
      const free = { ...(env as unknown as Env), SVC_WORKERS_PLAN: "free" } as Env;
      const start = Date.parse("2026-11-28T10:00:00Z");
      const ran: string[] = [];
      for (let i = 0; i < 3; i++) {
        const outcome = await runScheduled(RAILS, RAIL_JOBS_CRON, free, start + i * 15 * 60_000);
        expect(outcome.results).toHaveLength(1);
        ran.push(outcome.results![0]!.name);
      }
      expect(ran.sort()).toEqual(["escrow-keeper", "sweep", "upto-keeper"]);
      expect(
        (await runScheduled(RAILS, RAIL_JOBS_CRON, env as unknown as Env, start)).results?.map((r) => r.name),
      ).toEqual(["sweep", "escrow-keeper", "upto-keeper"]);
    },
  );

  it(
    "the operator sweep on Workers Free takes on no more rails than a Free invocation allows; a wrong plan is a " +
      "config error",
    async () => {
      const headers = { Authorization: "Bearer test-operator-token", "Content-Type": "application/json" };
      const sweep = await callWithEnv({ SVC_WORKERS_PLAN: "free" }, "/sweep", {
        method: "POST",
        headers,
        body: JSON.stringify({ dryRun: true }),
      });
      expect(sweep.status, JSON.stringify(sweep.body)).toBe(200);
      expect(sweep.body.maxRailsPerRun).toBe(maxRailsPerRun("free"));
      expect(maxRailsPerRun("free")).toBeLessThan(maxRailsPerRun("paid"));
      const wrong = await callWithEnv({ SVC_WORKERS_PLAN: "bundled" }, "/health");
      expect(wrong.status).toBe(500);
      expect(wrong.body.error).toContain("SVC_WORKERS_PLAN");
    },
  );

  it("does nothing with an invalid configuration (and says so in the log)", async () => {
    const result = await runScheduled(RAILS, RAIL_JOBS_CRON, {
      ...(env as unknown as Env),
      SOLANA_RPC_URL: "not a url",
    });
    expect(result).toEqual({ job: "none", ran: false });
  });

  it("keeps its cron expressions in sync with wrangler.toml", async () => {
    const toml = await import("../../../wrangler.toml?raw").then((m) => m.default as string).catch(() => null);
    if (toml === null) return expect.fail("wrangler.toml could not be read");
    const crons = /\[triggers\]\s*\n(?:#.*\n)*crons = \[(.*)\]/.exec(toml)?.[1];
    expect(crons).toContain(`"${RAIL_JOBS_CRON}"`);
    expect(crons).toContain(`"${CORE_JOBS_CRON}"`);
  });
});
