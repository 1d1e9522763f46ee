/**
 * Cron Triggers under `npm start`: the Worker served the way scripts/start.ts serves it (Miniflare's entry worker
 * with unsafeTriggerHandlers) answers the on-demand trigger URL by running its real `scheduled` handler against the
 * local chain and the local D1, and every expression the start script schedules is one wrangler.toml declares.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalnet, type RunningLocalnet } from "../../localnet/server";
import { startWorker, type RunningWorker } from "../../scripts/lib/run-worker";
import { randomKeypair } from "../../scripts/lib/keypair";
import { fundFromFaucet } from "../../demo/chain-rpc";
import { cronsOfConfig } from "../../scripts/lib/serve-worker";
import { triggerScheduled } from "../../scripts/lib/cron-runner";
import { JOBS_BY_CRON, PROBE_CRON, SWEEP_CRON } from "../../src/jobs/scheduled";

let chain: RunningLocalnet;
let worker: RunningWorker;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, quiet: true });
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 10_000_000_000);
  worker = await startWorker({ rpcUrl: chain.url, feePayerSecretKeyBase58: feePayer.secretKeyBase58, triggerHandlers: true });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await chain?.close();
});

const health = async () => (await (await fetch(`${worker.url}/api/v1/facilitator/health`)).json()) as any;

describe("Cron Triggers under npm start", () => {
  it("schedules exactly wrangler.toml's crons, each of which has jobs", () => {
    const crons = cronsOfConfig();
    expect(crons.sort()).toEqual([PROBE_CRON, SWEEP_CRON].sort());
    for (const cron of crons) expect(JOBS_BY_CRON[cron]?.length).toBeGreaterThan(0);
  });

  it("GET /cdn-cgi/handler/scheduled?cron= runs the trigger's jobs now, and /health shows their runs", async () => {
    const before = await health();
    expect(before.settlementKeeper.jobs).toEqual({ sweep: null, "escrow-keeper": null, "upto-keeper": null, retention: null, "probe-resources": null, "search-index-merge": null });

    const response = await fetch(`${worker.url}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(PROBE_CRON)}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    await triggerScheduled(worker.url, SWEEP_CRON);

    const after = await health();
    for (const job of ["sweep", "escrow-keeper", "upto-keeper", "retention", "probe-resources", "search-index-merge"]) {
      expect(after.settlementKeeper.jobs[job], job).toMatchObject({ trigger: "cron", outcome: "ok", lamportsSpent: "0" });
    }
    expect(Date.parse(after.settlementKeeper.jobs.sweep.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(after.settlementKeeper).toMatchObject({ vaultSweepCronConfigured: true, slaEscrowSettleCronConfigured: true, databaseConnected: true });
  });
});
