import type { Config } from "../../platform/config/load-config";
import type { Env } from "../../env";
import { log } from "../../platform/observability/log";
import { purgeConsumedChallengesExpiredBefore, purgePaymentAttemptsBefore } from "../../store/retention";
import { ESCROW_WATCH_TABLE } from "../../rails/sla-escrow/store/escrow-watch";
import { UPTO_CHANNELS_TABLE } from "../../rails/upto/store/upto-channels";
import { purgeFinishedRowsBefore } from "../../store/keeper-queue";
import { purgeSponsoredFundingFailuresBefore, SPONSORED_FAILURE_WINDOW_MS } from "../../rails/sla-escrow/store/sponsored-funding-failures";

const DAY_MS = 86_400_000;
/** Rows per DELETE and DELETEs per table per run: at most 5 × 10 D1 queries, 100,000 rows per table a day at the hourly trigger. */
export const RETENTION_BATCH_SIZE = 500;
export const RETENTION_MAX_BATCHES = 10;
/** Consumed challenges are kept a day past their expiry (they are worthless after it; the margin covers clock skew). */
const CHALLENGE_GRACE_MS = DAY_MS;

export interface RetentionOutcome {
  paymentAttemptsDeleted: number;
  challengesDeleted: number;
  /** Escrow keeper rows finished (closed, dropped, stuck) more than SVC_ESCROW_WATCH_RETENTION_DAYS ago. */
  escrowWatchRowsDeleted: number;
  /** Failed sponsored fundings older than the window they are counted in. */
  sponsoredFailuresDeleted: number;
  /** upto keeper rows finished (closed, dropped, stuck) more than SVC_ESCROW_WATCH_RETENTION_DAYS ago. */
  uptoChannelRowsDeleted: number;
}

/**
 * The scheduled purge: settle attempts older than SVC_ATTEMPT_RETENTION_DAYS, long-expired consumed challenges, the
 * escrow keeper's finished rows older than SVC_ESCROW_WATCH_RETENTION_DAYS, and failed sponsored fundings past their window.
 */
export async function runRetention(config: Config, env: Env, nowMs = Date.now()): Promise<RetentionOutcome> {
  const attemptsBefore = nowMs - config.limits.attemptRetentionDays * DAY_MS;
  const challengesBefore = nowMs - CHALLENGE_GRACE_MS;
  const keeperRowsBefore = nowMs - config.slaEscrow.watchRetentionDays * DAY_MS;
  const outcome: RetentionOutcome = {
    paymentAttemptsDeleted: await drain((batch) => purgePaymentAttemptsBefore(env.DB, attemptsBefore, batch)),
    challengesDeleted: await drain((batch) => purgeConsumedChallengesExpiredBefore(env.DB, challengesBefore, batch)),
    escrowWatchRowsDeleted: await drain((batch) => purgeFinishedRowsBefore(env.DB, ESCROW_WATCH_TABLE, keeperRowsBefore, batch)),
    sponsoredFailuresDeleted: await drain((batch) => purgeSponsoredFundingFailuresBefore(env.DB, nowMs - SPONSORED_FAILURE_WINDOW_MS, batch)),
    uptoChannelRowsDeleted: await drain((batch) => purgeFinishedRowsBefore(env.DB, UPTO_CHANNELS_TABLE, keeperRowsBefore, batch)),
  };
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
