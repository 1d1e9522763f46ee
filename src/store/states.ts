/**
 * The closed value sets of the state and outcome columns, in code and (migration 0012) as each column's CHECK.
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

/** `column IN ('a', 'b', …)`: a CHECK over a closed set (values are identifiers of this file, never input). */
export function oneOf(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map((value) => `'${value}'`).join(", ")})`;
}
