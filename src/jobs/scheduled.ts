import type { Env } from "../env";
import { type Config, configOf } from "../platform/config/load-config";
import type { WorkersPlan } from "../platform/config/workers-plan";
import { log } from "../platform/observability/log";
import type { RailModule } from "../rails/rail";
import { railJobs } from "../rails/registry";
import { runRecorded } from "./job-run";
import { probeResourcesJob } from "./probe-resources-job";
import { retentionJobOf } from "./retention-job";
import type { ScheduledJob } from "./scheduled-job";
import { searchIndexMergeJob } from "./search-index-merge-job";

/*
 * The Cron expressions of wrangler.toml (every environment lists the same ones), each named after what it runs.
 */
/** Every 15 minutes: the rails' jobs (`railJobs`: the sweep, the escrow keeper, the upto keeper). */
export const RAIL_JOBS_CRON = "*/15 * * * *";
/**
 * Every 10 minutes: the core's jobs (retention, the resource probe, the search index merge). With
 * SVC_PROBE_CRON_BATCH_LIMIT=400, 10,000 resources are re-probed every 25 runs (~4 h).
 */
export const CORE_JOBS_CRON = "*/10 * * * *";
/** How often each trigger fires: on Workers Free its invocations take its jobs in turn, one each. */
const CRON_PERIOD_MS: Record<string, number> = { [RAIL_JOBS_CRON]: 15 * 60_000, [CORE_JOBS_CRON]: 10 * 60_000 };

/**
 * Jobs per Cron Trigger over a rails list (the Worker's: `RAILS`), in the order they run. Each core job is one
 * `*-job.ts` module in this folder (the wiring; the engine lives with its feature) that adds itself here with one
 * line; a rail's jobs are its module's `jobs`. Jobs on one trigger share the invocation's subrequest budget: each
 * documents its own arithmetic and runs after the previous one finished. Built once per list.
 */
export function jobsByCron(rails: readonly RailModule[]): Record<string, readonly ScheduledJob[]> {
  let jobs = jobsOfRails.get(rails);
  if (!jobs) {
    jobs = {
      // The rails' own jobs (sweep, keepers), in list order.
      [RAIL_JOBS_CRON]: railJobs(rails),
      [CORE_JOBS_CRON]: [retentionJobOf(rails), probeResourcesJob, searchIndexMergeJob],
    };
    jobsOfRails.set(rails, jobs);
  }
  return jobs;
}
const jobsOfRails = new WeakMap<readonly RailModule[], Record<string, readonly ScheduledJob[]>>();

export interface ScheduledOutcome {
  /** The trigger's jobs by name, joined with "+" ("unknown": a trigger with none; "none": the configuration failed). */
  job: string;
  ran: boolean;
  /** Per job: whether it finished without throwing. */
  results?: { name: string; ok: boolean }[];
}

/**
 * The jobs one invocation of `cron` runs: all of them in order on Workers Paid; on Workers Free, where one invocation
 * has 50 subrequests, one of them, in turn by the trigger's scheduled time (src/platform/config/workers-plan.ts).
 */
export function jobsOfInvocation(
  jobs: readonly ScheduledJob[],
  cron: string,
  plan: WorkersPlan,
  scheduledTimeMs: number,
): readonly ScheduledJob[] {
  if (plan === "paid" || jobs.length <= 1) return jobs;
  const periodMs = CRON_PERIOD_MS[cron] ?? 60_000;
  return [jobs[Math.floor(scheduledTimeMs / periodMs) % jobs.length]!];
}

/**
 * Dispatches a Cron Trigger to its jobs over `rails` (the scheduled handler's, src/index.ts), with their
 * configuration. One failing job is logged and does not stop the next.
 */
export async function runScheduled(
  rails: readonly RailModule[],
  cron: string,
  env: Env,
  scheduledTimeMs: number = Date.now(),
): Promise<ScheduledOutcome> {
  let config: Config;
  try {
    config = await configOf(rails).get(env);
  } catch (error) {
    log("error", "scheduled_config_invalid", { cron, error });
    return { job: "none", ran: false };
  }
  const byCron = jobsByCron(rails);
  const triggerJobs = Object.hasOwn(byCron, cron) ? byCron[cron]! : [];
  const job = triggerJobs.length > 0 ? triggerJobs.map((scheduled) => scheduled.name).join("+") : "unknown";
  const jobs = jobsOfInvocation(triggerJobs, cron, config.workersPlan, scheduledTimeMs);
  if (jobs.length === 0) {
    log("info", "scheduled_job_skipped", { cron, job, reason: "no job registered for this trigger" });
    return { job, ran: false };
  }
  const results: { name: string; ok: boolean }[] = [];
  for (const scheduled of jobs) {
    try {
      await runRecorded(env.DB, scheduled.name, "cron", () => scheduled.run(config, env), scheduled.summarize);
      results.push({ name: scheduled.name, ok: true });
    } catch (error) {
      log("error", "scheduled_job_failed", { cron, job: scheduled.name, error });
      results.push({ name: scheduled.name, ok: false });
    }
  }
  return { job, ran: true, results };
}
