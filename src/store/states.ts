/**
 * The closed value sets of the core's state and outcome columns, in code and (migrations 0012, 0013 and 0015) as each
 * column's CHECK. A rail's own columns have their sets in its folder (src/rails/<scheme>/store/states.ts), built on
 * the keeper sets here where its table is a keeper's watch table.
 *
 * A keeper's watch row: open (in the queue) | closed (nothing left to do) | dropped (not a payment this facilitator
 * settled) | stuck (gave up after the attempt cap).
 */
export const KEEPER_ROW_STATES = ["open", "closed", "dropped", "stuck"] as const;
export type KeeperRowState = (typeof KEEPER_ROW_STATES)[number];

/**
 * A watch row's last_outcome: what the keeper's last look at the row did (its words are last_detail; NULL before the
 * first look). A failed attempt at the attempt cap leaves the row stuck (its state), the outcome the last attempt's.
 * - landed: the step was sent and the chain confirmed it (last_action names the step)
 * - unconfirmed: sent, not confirmed within the run (the row keeps its claim until the chain has answered)
 * - waiting: nothing to send yet (a deadline, a funding the chain has not confirmed yet)
 * - held: a step was ready and held back, not a failure (the fee payer below its minimum, a budget cap, a fact read
 *   again just before the send)
 * - gone: nothing left to do (the account is gone or closed); the row is closed
 * - dropped: not a payment this facilitator settled; the row is dropped
 * - skipped: the step cannot be taken now (a failed attempt)
 * - refused: preflight refused the step, nothing reached the cluster (a failed attempt)
 * - failed: the step failed on chain, its fee paid (a failed attempt)
 */
export const KEEPER_LOOK_OUTCOMES = [
  "landed",
  "unconfirmed",
  "waiting",
  "held",
  "gone",
  "dropped",
  "skipped",
  "refused",
  "failed",
] as const;
export type KeeperLookOutcome = (typeof KEEPER_LOOK_OUTCOMES)[number];

/** A watch row's last_action when the look sent no step: in every rail's set of keeper actions. */
export const NO_KEEPER_ACTION = "none";

/**
 * job_runs.outcome: ok | partial (some items failed) | paused (fee payer below its minimum) | error (the run threw).
 */
export const JOB_RUN_OUTCOMES = ["ok", "partial", "paused", "error"] as const;
export type JobRunOutcome = (typeof JOB_RUN_OUTCOMES)[number];

/**
 * payment_attempts.outcome: a settle's settled | pending (sent, not yet confirmed) | failed (refused, or failed on
 * chain; the rejection reason is the `reason` column). valid | invalid are a verify's, kept by rows written while
 * /verify still recorded its attempts.
 */
export const PAYMENT_ATTEMPT_OUTCOMES = ["settled", "pending", "failed", "valid", "invalid"] as const;
export type PaymentAttemptOutcome = (typeof PAYMENT_ATTEMPT_OUTCOMES)[number];

/**
 * payment_attempts.role: what a settlement is to the seller — a sale (money for the seller: an exact payment, an
 * escrow funding, an upto claim) or a deposit (the buyer's ceiling locked for a later claim, upto's first settle: the
 * claim after it is the sale, so the history counts each sale once). NULL on rows written before it was recorded.
 */
export const PAYMENT_ATTEMPT_ROLES = ["sale", "deposit"] as const;
export type PaymentAttemptRole = (typeof PAYMENT_ATTEMPT_ROLES)[number];

/**
 * fee_payer_exposure.state: held (rent out, expected back) | spent (gone for good: counts for a day) | returned (the
 * held rent came back) | voided (the spend never happened). Only held and spent count against the caps.
 */
export const EXPOSURE_STATES = ["held", "spent", "returned", "voided"] as const;
export type ExposureState = (typeof EXPOSURE_STATES)[number];
/** The states whose lamports are out or spent: what the caps count. */
export const LIVE_EXPOSURE_STATES = ["held", "spent"] as const satisfies readonly ExposureState[];
/**
 * fee_payer_exposure.pool: whose daily budget a spend comes out of, kept apart so that no one pool can empty another.
 * - buyers: what a stranger's payment costs the fee payer (its network fee, a sponsored funding), when the seller it
 *   pays
 *   has not proven who it is;
 * - sellers: the same for a payment to a proven seller (wallet-signed registration with a proven origin), out of that
 *   seller's own daily quota;
 * - jobs: what the operator's own work spends (sweeps, keepers, just-in-time vaults, payout token accounts).
 */
export const EXPOSURE_POOLS = ["buyers", "sellers", "jobs"] as const;
export type ExposurePool = (typeof EXPOSURE_POOLS)[number];
/** How a booking ends (settleExposure). */
export type ExposureEnd = Exclude<ExposureState, "held">;

/** `column IN ('a', 'b', …)`: a CHECK over a closed set (values are the closed sets' own identifiers, never input). */
export function oneOf(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map((value) => `'${value}'`).join(", ")})`;
}
