import { LAMPORTS_PER_SIGNATURE } from "../chain/network-fee";
import { log } from "../platform/observability/log";
import { type JobRunOutcome, recordJobRun } from "../store/job-runs";
import type { KeeperRun } from "./keeper/run-keeper";

/** How one run of a job ended, for the `job_runs` row /health shows. */
export interface JobRunSummary {
  outcome: JobRunOutcome;
  /** Lamports the fee payer spent in the run. */
  lamportsSpent: bigint;
  detail: string | null;
}

/**
 * Runs one job and records its last run (one D1 upsert), also when it throws ("error", rethrown). A failing record
 * is logged, never turned into a failed job: the job's own effects are already done.
 */
export async function runRecorded<R>(
  db: D1Database,
  job: string,
  trigger: string,
  run: () => Promise<R>,
  summarize: (result: R) => JobRunSummary,
): Promise<R> {
  const startedAtMs = Date.now();
  let result: R;
  try {
    result = await run();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    await record(db, {
      job,
      trigger,
      startedAtMs,
      finishedAtMs: Date.now(),
      outcome: "error",
      lamportsSpent: 0n,
      detail,
    });
    throw error;
  }
  await record(db, { job, trigger, startedAtMs, finishedAtMs: Date.now(), ...summarize(result) });
  return result;
}

async function record(db: D1Database, run: Parameters<typeof recordJobRun>[1]): Promise<void> {
  try {
    await recordJobRun(db, run);
  } catch (error) {
    log("error", "job_run_record_failed", { job: run.job, error });
  }
}

/** A job that spends nothing and either finished or threw. */
export function spentNothing(detail: string | null = null): JobRunSummary {
  return { outcome: "ok", lamportsSpent: 0n, detail };
}

/**
 * A keeper run as /health shows it. Each step is one transaction signed by the fee payer alone without a priority fee,
 * so every step that reached the cluster (it has a signature) cost one network fee; rent it brought back is not
 * counted.
 */
export function summarizeKeeperRun(run: KeeperRun<{ signature: string | null }>, counts: string): JobRunSummary {
  const sent = run.items.filter((item) => item.signature !== null).length;
  const paused = run.paused ?? null;
  return {
    outcome: paused ? "paused" : "ok",
    lamportsSpent: BigInt(sent) * LAMPORTS_PER_SIGNATURE,
    // Below the minimum a rail may still take the steps that return rent: say what they did.
    detail: paused
      ? sent > 0
        ? `${paused.message}; steps that return rent still taken: ${counts}`
        : paused.message
      : counts,
  };
}
