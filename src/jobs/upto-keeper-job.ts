import type { ScheduledJob } from "./scheduled";
import { summarizeKeeperRun, type JobRunSummary } from "./job-run";
import { runUptoKeeper, type UptoKeeperReport } from "../upto-keeper/run-keeper";
import { maxChannelsWithinBudget, UPTO_KEEPER_SUBREQUEST_BUDGET } from "../upto-keeper/budget";
import { jobSubrequestBudget } from "../config/workers-plan";

/** The Cron Trigger's upto keeper: closes channels no voucher can settle any more and reclaims their rent (../upto-keeper/). */
export const uptoKeeperJob: ScheduledJob<UptoKeeperReport> = {
  name: "upto-keeper",
  run: (config, env) => runUptoKeeper(config, env.DB, maxChannelsWithinBudget(jobSubrequestBudget(config.workersPlan, UPTO_KEEPER_SUBREQUEST_BUDGET))),
  summarize: summarizeUptoKeeper,
};

export function summarizeUptoKeeper(report: UptoKeeperReport): JobRunSummary {
  return summarizeKeeperRun(report, `${report.closed} closed, ${report.reclaimed} reclaimed, ${report.scanned} scanned`);
}
