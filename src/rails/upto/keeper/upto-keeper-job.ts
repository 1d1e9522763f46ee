import { type JobRunSummary, summarizeKeeperRun } from "../../../jobs/job-run";
import type { ScheduledJob } from "../../../jobs/scheduled-job";
import { jobSubrequestBudget } from "../../../platform/config/workers-plan";
import { maxChannelsWithinBudget, UPTO_KEEPER_SUBREQUEST_BUDGET } from "./budget";
import { runUptoKeeper, type UptoKeeperReport } from "./run-keeper";

/**
 * The Cron Trigger's upto keeper: closes channels no voucher can settle any more and reclaims their rent
 * (../upto-keeper/).
 */
export const uptoKeeperJob: ScheduledJob<UptoKeeperReport> = {
  name: "upto-keeper",
  run: (config, env) =>
    runUptoKeeper(
      config,
      env.DB,
      maxChannelsWithinBudget(jobSubrequestBudget(config.workersPlan, UPTO_KEEPER_SUBREQUEST_BUDGET)),
    ),
  summarize: summarizeUptoKeeper,
};

export function summarizeUptoKeeper(report: UptoKeeperReport): JobRunSummary {
  return summarizeKeeperRun(
    report,
    `${report.closed} closed, ${report.reclaimed} reclaimed, ${report.scanned} scanned`,
  );
}
