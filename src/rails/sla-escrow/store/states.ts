import { KEEPER_ROW_STATES } from "../../../store/states";

/** The closed value sets of the escrow keeper's watch table, in code and (migration 0012) as each column's CHECK. */

/** escrow_watch.state: a keeper row. */
export const ESCROW_WATCH_STATES = KEEPER_ROW_STATES;
