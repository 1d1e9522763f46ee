/**
 * The closed value sets of the state and outcome columns, in code and (migrations 0012 and 0013) as each column's CHECK.
 * A keeper's watch row: open (in the queue) | closed (nothing left to do) | dropped (not a payment this facilitator
 * settled) | stuck (gave up after the attempt cap).
 */
export const KEEPER_ROW_STATES = ["open", "closed", "dropped", "stuck"] as const;
export type KeeperRowState = (typeof KEEPER_ROW_STATES)[number];

/** escrow_watch.state: a keeper row. */
export const ESCROW_WATCH_STATES = KEEPER_ROW_STATES;

/**
 * upto_channels.state: opening (written before the Open is sent; not queued), a keeper row, or voided (an open that
 * never reached the cluster, kept only by rows written before opening rows were deleted instead).
 */
export const UPTO_CHANNEL_STATES = ["opening", ...KEEPER_ROW_STATES, "voided"] as const;
export type UptoChannelState = (typeof UPTO_CHANNEL_STATES)[number];

/** job_runs.outcome: ok | partial (some items failed) | paused (fee payer below its minimum) | error (the run threw). */
export const JOB_RUN_OUTCOMES = ["ok", "partial", "paused", "error"] as const;
export type JobRunOutcome = (typeof JOB_RUN_OUTCOMES)[number];

/** sweep_runs.outcome: a sweep run's, the same set as a job run's. */
export const SWEEP_RUN_OUTCOMES = JOB_RUN_OUTCOMES;

/**
 * payment_attempts.outcome: a settle's settled | pending (sent, not yet confirmed) | failed (refused, or failed on
 * chain; the rejection reason is the `reason` column). valid | invalid are a verify's, kept by rows written while
 * /verify still recorded its attempts.
 */
export const PAYMENT_ATTEMPT_OUTCOMES = ["settled", "pending", "failed", "valid", "invalid"] as const;
export type PaymentAttemptOutcome = (typeof PAYMENT_ATTEMPT_OUTCOMES)[number];

/**
 * fee_payer_exposure.state: held (rent out, expected back) | spent (gone for good: counts for a day) | returned (the
 * held rent came back) | voided (the spend never happened). Only held and spent count against the caps.
 */
export const EXPOSURE_STATES = ["held", "spent", "returned", "voided"] as const;
export type ExposureState = (typeof EXPOSURE_STATES)[number];
/** The states whose lamports are out or spent: what the caps count. */
export const LIVE_EXPOSURE_STATES = ["held", "spent"] as const satisfies readonly ExposureState[];
/** How a booking ends (settleExposure). */
export type ExposureEnd = Exclude<ExposureState, "held">;

/**
 * sweep_state.last_outcome: the plan item's status in the rail's last real run: ok (swept) | skipped (nothing worth
 * sweeping, or not this run) | failed (the error's words are last_error). NULL before the first run finished.
 */
export const SWEEP_RAIL_OUTCOMES = ["ok", "skipped", "failed"] as const;
export type SweepRailOutcome = (typeof SWEEP_RAIL_OUTCOMES)[number];

/** `column IN ('a', 'b', …)`: a CHECK over a closed set (values are identifiers of this file, never input). */
export function oneOf(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map((value) => `'${value}'`).join(", ")})`;
}
