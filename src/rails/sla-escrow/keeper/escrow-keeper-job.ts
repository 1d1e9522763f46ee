import { type JobRunSummary, summarizeKeeperRun } from "../../../jobs/job-run";
import type { ScheduledJob } from "../../../jobs/scheduled-job";
import { maxPaymentsPerRun } from "./budget";
import { type KeeperReport, runEscrowKeeper } from "./run-keeper";

/**
 * The Cron Trigger's escrow keeper: releases and refunds what the program allows, within its own budget
 * (../escrow-keeper/budget.ts).
 */
export const escrowKeeperJob: ScheduledJob<KeeperReport> = {
  name: "escrow-keeper",
  run: (config, env) =>
    runEscrowKeeper(config, env.DB, { dryRun: false, limit: maxPaymentsPerRun(config.workersPlan) }),
  summarize: summarizeKeeper,
};

/** An escrow keeper run as /health shows it (POST /escrow-keeper records its runs the same way). */
export function summarizeKeeper(report: KeeperReport): JobRunSummary {
  return summarizeKeeperRun(
    report,
    `${report.released} released, ${report.refunded} refunded, ${report.scanned} scanned`,
  );
}
