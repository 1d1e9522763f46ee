import type { ScheduledJob } from "./scheduled";
import type { JobRunSummary } from "./job-run";
import { runEscrowKeeper, type KeeperReport } from "../escrow-keeper/run-keeper";
import { maxPaymentsWithinBudget } from "../escrow-keeper/budget";

/** One signature (the fee payer's), no priority fee. */
const PAYOUT_NETWORK_FEE_LAMPORTS = 5_000n;

/** The Cron Trigger's escrow keeper: releases and refunds what the program allows, within its own budget (../escrow-keeper/budget.ts). */
export const escrowKeeperJob: ScheduledJob<KeeperReport> = {
  name: "escrow-keeper",
  run: (config, env) => runEscrowKeeper(config, env.DB, { dryRun: false, limit: maxPaymentsWithinBudget() }),
  summarize: summarizeKeeper,
};

/**
 * A keeper run as /health shows it. Each payout is one transaction signed by the fee payer alone without a
 * priority fee, so every payout that reached the cluster (it has a signature) cost one network fee.
 */
export function summarizeKeeper(report: KeeperReport): JobRunSummary {
  const sent = report.items.filter((item) => item.signature !== null).length;
  const paused = report.paused ?? null;
  return {
    outcome: paused ? "paused" : "ok",
    lamportsSpent: BigInt(sent) * PAYOUT_NETWORK_FEE_LAMPORTS,
    detail: paused ? paused.message : `${report.released} released, ${report.refunded} refunded, ${report.scanned} scanned`,
  };
}
