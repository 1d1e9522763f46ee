import { KEEPER_ROW_STATES, NO_KEEPER_ACTION } from "../../../store/states";

/**
 * The closed value sets of the escrow keeper's watch table, in code and (migrations 0012 and 0015) as each column's
 * CHECK; last_outcome takes the keepers' KEEPER_LOOK_OUTCOMES (src/store/states.ts).
 */

/** escrow_watch.state: a keeper row. */
export const ESCROW_WATCH_STATES = KEEPER_ROW_STATES;

/** escrow_watch.last_action: the payout step the keeper's last look took (or would have taken), or none. */
export const ESCROW_KEEPER_ACTIONS = ["release", "refund", "close", NO_KEEPER_ACTION] as const;
export type EscrowKeeperAction = (typeof ESCROW_KEEPER_ACTIONS)[number];
