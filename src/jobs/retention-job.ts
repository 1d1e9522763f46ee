import type { RailModule } from "../rails/rail";
import { spentNothing } from "./job-run";
import { type RetentionOutcome, runRetention } from "./retention/run-retention";
import type { ScheduledJob } from "./scheduled-job";

/** The Cron Trigger's purge of old rows (retention/run-retention.ts), the core's tables and those `rails` list. */
export function retentionJobOf(rails: readonly RailModule[]): ScheduledJob<RetentionOutcome> {
  return {
    name: "retention",
    run: (config, env) => runRetention(rails, config, env),
    summarize: (outcome) =>
      spentNothing(
        `deleted ${outcome.paymentAttemptsDeleted} payment attempts, ${outcome.challengesDeleted} challenges`,
      ),
  };
}
