import type { Env } from "../../env";
import type { Config } from "../../platform/config/load-config";
import { FREE_PLAN_PROBES_PER_RUN } from "../../platform/config/workers-plan";
import { log } from "../../platform/observability/log";
import { probeStatement, resourcesDueForProbe } from "../../store/resources";
import { importManifest } from "./manifest";
import { probeResource } from "./probe";
import { regenerateResourceIndex } from "./resource-index";

/**
 * The probe job (docs/facilitator-spec.md §3.3 gate 4). Subrequest arithmetic per run (Workers Paid: 10,000 subrequests
 * per invocation, formerly 1,000; Free: 50, where SVC_WORKERS_PLAN=free gives the job an invocation of its own, one
 * manifest and at most FREE_PLAN_PROBES_PER_RUN probes, src/platform/config/workers-plan.ts):
 *   manifests:  MANIFESTS_PER_RUN (3) fetches (each re-checks the origin proof: 1 D1 write) + at most
 *               MANIFEST_ENTRIES_PER_HARVEST (100) upserts each (inline probes: 0, harvested rows are probed below)
 *   probes:     SVC_PROBE_CRON_BATCH_LIMIT (default 400) fetches, PROBE_CONCURRENCY (6, the simultaneous-connection
 *               cap) at a time
 *   D1 and KV:  1 select + ceil(400 / 100) write batches + 1 index select + 1 KV put + 2 harvest bookkeeping queries
 * ≤ 3 + 3 + 300 + 400 + 9 ≈ 715 subrequests, under the 1,000 of the older paid limit. Wall time is bounded by the 5 s
 * probe timeout: at worst ceil(400 / 6) × 5 s ≈ 335 s, inside a Cron Trigger's 15 minutes. Coverage: every 10 minutes
 * × 400 = 10,000 live resources per 25 runs (~4 h). Only resources on a proven origin are in the queue; a failing one
 * waits out a back-off (10 min doubling to 24 h) and leaves the queue after 7 days of failures
 * (src/store/resources.ts), so dead entries never take the places of live ones.
 */
export const PROBE_CONCURRENCY = 6;
export const MANIFESTS_PER_RUN = 3;
const WRITE_BATCH = 100;

export interface ProbeRunSummary {
  probed: number;
  passed: number;
  failed: number;
  manifests: number;
  indexed: number;
}

export async function runProbeJob(config: Config, env: Env, nowMs = Date.now()): Promise<ProbeRunSummary> {
  const free = config.workersPlan === "free";
  const manifests = await harvestDueManifests(config, env.DB, free ? 1 : MANIFESTS_PER_RUN, nowMs);
  const due = await resourcesDueForProbe(
    env.DB,
    free ? Math.min(config.probe.cronBatchLimit, FREE_PLAN_PROBES_PER_RUN) : config.probe.cronBatchLimit,
    nowMs,
  );
  const statements: D1PreparedStatement[] = [];
  let passed = 0;
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const row = due[next++]!;
      const result = await probeResource(row, { allowLoopback: config.probe.allowLoopback });
      if (result.ok) passed++;
      statements.push(probeStatement(env.DB, row.id, result, nowMs, config.probe.maxConsecutiveFailures));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, due.length) }, worker));
  for (let i = 0; i < statements.length; i += WRITE_BATCH) await env.DB.batch(statements.slice(i, i + WRITE_BATCH));
  const index = await regenerateResourceIndex(env.DB, env.KV, nowMs);
  const summary = { probed: due.length, passed, failed: due.length - passed, manifests, indexed: index.total };
  log("info", "resource_probe_run", { ...summary });
  return summary;
}

/** Harvests the manifests of the verified merchants least recently harvested (never harvested first). */
async function harvestDueManifests(config: Config, db: D1Database, limit: number, nowMs: number): Promise<number> {
  const due = await db
    .prepare(
      `SELECT p.wallet_pubkey AS wallet, p.service_url AS serviceUrl FROM providers p
       LEFT JOIN manifest_harvests h ON h.wallet_pubkey = p.wallet_pubkey
       WHERE p.retired_at_ms IS NULL AND p.service_url IS NOT NULL
       ORDER BY h.last_harvest_at_ms IS NOT NULL, h.last_harvest_at_ms, p.wallet_pubkey LIMIT ?`,
    )
    .bind(limit)
    .all<{ wallet: string; serviceUrl: string }>();
  const writes: D1PreparedStatement[] = [];
  for (const merchant of due.results) {
    let error: string | null = null;
    try {
      await importManifest(config, db, merchant.wallet, merchant.serviceUrl, 0);
    } catch (failure) {
      error = (failure instanceof Error ? failure.message : String(failure)).slice(0, 255);
    }
    writes.push(
      db
        .prepare(
          "INSERT INTO manifest_harvests (wallet_pubkey, last_harvest_at_ms, last_error) VALUES (?1, ?2, ?3) ON " +
            "CONFLICT(wallet_pubkey) DO UPDATE SET last_harvest_at_ms = ?2, last_error = ?3",
        )
        .bind(merchant.wallet, nowMs, error),
    );
  }
  if (writes.length > 0) await db.batch(writes);
  return due.results.length;
}
