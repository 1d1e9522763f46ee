import type { ScheduledJob } from "./scheduled";
import { spentNothing } from "./job-run";
import { runRetention, type RetentionOutcome } from "./retention/run-retention";

/** The Cron Trigger's purge of old rows (../retention/run-retention.ts). */
export const retentionJob: ScheduledJob<RetentionOutcome> = {
  name: "retention",
  run: (config, env) => runRetention(config, env),
  summarize: (outcome) => spentNothing(`deleted ${outcome.paymentAttemptsDeleted} payment attempts, ${outcome.challengesDeleted} challenges`),
};
