import type { ScheduledJob } from "./scheduled";
import type { JobRunSummary } from "./job-run";
import { runUptoKeeper, type UptoKeeperReport } from "../upto-keeper/run-keeper";

/** One signature (the fee payer's), no priority fee. */
const STEP_NETWORK_FEE_LAMPORTS = 5_000n;

/** The Cron Trigger's upto keeper: closes channels no voucher can settle any more and reclaims their rent (../upto-keeper/). */
export const uptoKeeperJob: ScheduledJob<UptoKeeperReport> = {
  name: "upto-keeper",
  run: (config, env) => runUptoKeeper(config, env.DB),
  summarize: summarizeUptoKeeper,
};

/** Every step that reached the cluster (it has a signature) cost one network fee; the rent it brought back is not counted. */
export function summarizeUptoKeeper(report: UptoKeeperReport): JobRunSummary {
  const sent = report.items.filter((item) => item.signature !== null).length;
  const paused = report.paused ?? null;
  return {
    outcome: paused ? "paused" : "ok",
    lamportsSpent: BigInt(sent) * STEP_NETWORK_FEE_LAMPORTS,
    detail: paused ? paused.message : `${report.closed} closed, ${report.reclaimed} reclaimed, ${report.scanned} scanned`,
  };
}
