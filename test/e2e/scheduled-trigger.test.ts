/**
 * Cron Triggers under `npm start`: the Worker served the way scripts/start.ts serves it (Miniflare's entry worker
 * with unsafeTriggerHandlers) answers the on-demand trigger URL by running its real `scheduled` handler against the
 * local chain and the local D1, and every expression the start script schedules is one wrangler.toml declares.
 */
import { describe, expect, it } from "vitest";
import { triggerScheduled } from "../../scripts/lib/cron-runner";
import { cronsOfConfig } from "../../scripts/lib/serve-worker";
import { jobsByCron, PROBE_CRON, SWEEP_CRON } from "../../src/jobs/scheduled";
import { RAILS } from "../../src/rails/registry";
import { withLocalWorker } from "../support/node/local-worker";

const local = withLocalWorker({ feePayerLamports: 10_000_000_000, triggerHandlers: true, startTimeoutMs: 180_000 });

const health = async () => (await (await fetch(`${local.worker.url}/api/v1/facilitator/health`)).json()) as any;

describe("Cron Triggers under npm start", () => {
  it("schedules exactly wrangler.toml's crons, each of which has jobs", () => {
    const crons = cronsOfConfig();
    expect(crons.sort()).toEqual([PROBE_CRON, SWEEP_CRON].sort());
    for (const cron of crons) expect(jobsByCron(RAILS)[cron]?.length).toBeGreaterThan(0);
  });

  it("GET /cdn-cgi/handler/scheduled?cron= runs the trigger's jobs now, and /health shows their runs", async () => {
    const before = await health();
    expect(before.settlementKeeper.jobs).toEqual({
      sweep: null,
      "escrow-keeper": null,
      "upto-keeper": null,
      retention: null,
      "probe-resources": null,
      "search-index-merge": null,
    });

    const response = await fetch(
      `${local.worker.url}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(PROBE_CRON)}`,
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    await triggerScheduled(local.worker.url, SWEEP_CRON);

    const after = await health();
    for (const job of ["sweep", "escrow-keeper", "upto-keeper", "retention", "probe-resources", "search-index-merge"]) {
      expect(after.settlementKeeper.jobs[job], job).toMatchObject({
        trigger: "cron",
        outcome: "ok",
        lamportsSpent: "0",
      });
    }
    expect(Date.parse(after.settlementKeeper.jobs.sweep.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(after.settlementKeeper).toMatchObject({
      vaultSweepCronConfigured: true,
      slaEscrowSettleCronConfigured: true,
      databaseConnected: true,
    });
  });
});
