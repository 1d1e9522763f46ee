import type { JobRunSummary } from "../../../jobs/job-run";
import type { ScheduledJob } from "../../../jobs/scheduled-job";
import { defaultSweepOptions, runSweep, type SweepReport } from "./run-sweep";

/**
 * The Cron Trigger's sweep: the same engine with the configured defaults, within SWEEP_JOB_SUBREQUEST_BUDGET
 * (../sweep/budget.ts).
 */
export const sweepJob: ScheduledJob<SweepReport> = {
  name: "sweep",
  run: (config, env) => runSweep(config, env.DB, defaultSweepOptions(config, "cron")),
  summarize: summarizeSweep,
};

/** A sweep run as /health shows it (the operator routes record theirs the same way). */
export function summarizeSweep(report: SweepReport): JobRunSummary {
  const counts =
    `${report.succeeded} swept, ${report.failed} failed, ${report.skippedBelowThreshold} below ` +
    `threshold, ${report.skippedSellerTokenAccountMissing} without a seller token account`;
  return {
    outcome: report.paused ? "paused" : report.failed > 0 ? "partial" : "ok",
    lamportsSpent: BigInt(report.lamportsSpent),
    detail: report.paused ? report.paused.message : counts,
  };
}
