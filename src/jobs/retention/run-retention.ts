import type { Env } from "../../env";
import type { Config } from "../../platform/config/load-config";
import { log } from "../../platform/observability/log";
import type { RailModule } from "../../rails/rail";
import {
  purgeConsumedChallengesExpiredBefore,
  purgePaymentAttemptsBefore,
  purgeSpendHoursBefore,
} from "../../store/retention";

const DAY_MS = 86_400_000;
/**
 * Rows per DELETE and DELETEs per table per run: at most 5 × 10 D1 queries, 100,000 rows per table a day at the hourly
 * trigger.
 */
export const RETENTION_BATCH_SIZE = 500;
export const RETENTION_MAX_BATCHES = 10;
/** Consumed challenges are kept a day past their expiry (they are worthless after it; the margin covers clock skew). */
const CHALLENGE_GRACE_MS = DAY_MS;

/** The exposure budget's hours are kept two days: a cap counts one. */
const SPEND_HOURS_KEPT_MS = 2 * DAY_MS;

/**
 * Rows deleted per table: the core's three, then each rail's (`RailRetention.outcome`, e.g. `escrowWatchRowsDeleted`).
 */
export interface RetentionOutcome {
  paymentAttemptsDeleted: number;
  challengesDeleted: number;
  spendHoursDeleted: number;
  [railRowsDeleted: string]: number;
}

/**
 * The scheduled purge: settle attempts older than SVC_ATTEMPT_RETENTION_DAYS, long-expired consumed challenges, the
 * exposure budget's hours past its day, then
 * what each of `rails` lists in its `retention` (its keeper's finished rows, its own records past their window), in
 * list order.
 */
export async function runRetention(
  rails: readonly RailModule[],
  config: Config,
  env: Env,
  nowMs = Date.now(),
): Promise<RetentionOutcome> {
  const attemptsBefore = nowMs - config.limits.attemptRetentionDays * DAY_MS;
  const challengesBefore = nowMs - CHALLENGE_GRACE_MS;
  const outcome: RetentionOutcome = {
    paymentAttemptsDeleted: await drain((batch) => purgePaymentAttemptsBefore(env.DB, attemptsBefore, batch)),
    challengesDeleted: await drain((batch) => purgeConsumedChallengesExpiredBefore(env.DB, challengesBefore, batch)),
    spendHoursDeleted: await drain((batch) => purgeSpendHoursBefore(env.DB, nowMs - SPEND_HOURS_KEPT_MS, batch)),
  };
  for (const part of rails.flatMap((rail) => rail.retention ?? [])) {
    const before = part.before(config, nowMs);
    outcome[part.outcome] = await drain((batch) => part.purge(env.DB, before, batch));
  }
  log("info", "retention_run", { ...outcome });
  return outcome;
}

async function drain(deleteBatch: (batchSize: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < RETENTION_MAX_BATCHES; i++) {
    const deleted = await deleteBatch(RETENTION_BATCH_SIZE);
    total += deleted;
    if (deleted < RETENTION_BATCH_SIZE) break;
  }
  return total;
}
