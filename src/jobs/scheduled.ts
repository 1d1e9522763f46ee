import { getConfig } from "../config/load-config";
import { log } from "../observability/log";
import type { Env } from "../env";

/** Cron expressions from wrangler.toml, mapped to jobs. */
export const SWEEP_CRON = "*/15 * * * *";
export const PROBE_CRON = "7 * * * *";

/**
 * Dispatches a Cron Trigger to its job. Jobs that have not landed yet are logged as skipped,
 * so a deployment never fails its schedule because of a missing job.
 */
export async function runScheduled(cron: string, env: Env): Promise<{ job: string; ran: boolean }> {
  try {
    await getConfig(env);
  } catch (error) {
    log("error", "scheduled_config_invalid", { cron, error });
    return { job: "none", ran: false };
  }
  const job = cron === SWEEP_CRON ? "sweep" : cron === PROBE_CRON ? "probe" : "unknown";
  log("info", "scheduled_job_skipped", { cron, job, reason: "job not implemented yet" });
  return { job, ran: false };
}
