import { JOB_RUN_OUTCOMES } from "../../../store/states";

/** The closed value sets of the exact rail's sweep columns, in code and (migration 0013) as each column's CHECK. */

/**
 * sweep_state.last_outcome: the plan item's status in the rail's last real run: ok (swept) | skipped (nothing worth
 * sweeping, or not this run) | failed (the error's words are last_error). NULL before the first run finished.
 */
export const SWEEP_RAIL_OUTCOMES = ["ok", "skipped", "failed"] as const;
export type SweepRailOutcome = (typeof SWEEP_RAIL_OUTCOMES)[number];

/** sweep_runs.outcome: a sweep run's, the same set as a job run's. */
export const SWEEP_RUN_OUTCOMES = JOB_RUN_OUTCOMES;
