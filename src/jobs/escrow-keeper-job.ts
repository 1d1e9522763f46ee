import type { ScheduledJob } from "./scheduled";
import { runEscrowKeeper } from "./escrow-keeper/run-keeper";
import { maxPaymentsWithinBudget } from "./escrow-keeper/budget";

/** The Cron Trigger's escrow keeper: releases and refunds what the program allows, within its own budget (./escrow-keeper/budget.ts). */
export const escrowKeeperJob: ScheduledJob = {
  name: "escrow-keeper",
  run: (config, env) => runEscrowKeeper(config, env.DB, { dryRun: false, limit: maxPaymentsWithinBudget() }),
};
