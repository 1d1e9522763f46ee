import { KEEPER_ROW_STATES, NO_KEEPER_ACTION } from "../../../store/states";

/**
 * The closed value sets of the upto rail's channel table, in code and (migrations 0012 and 0015) as each column's
 * CHECK; last_outcome takes the keepers' KEEPER_LOOK_OUTCOMES (src/store/states.ts).
 */

/**
 * upto_channels.state: opening (written before the Open is sent; not queued), a keeper row, or voided (an open that
 * never reached the cluster, kept only by rows written before opening rows were deleted instead).
 */
export const UPTO_CHANNEL_STATES = ["opening", ...KEEPER_ROW_STATES, "voided"] as const;
export type UptoChannelState = (typeof UPTO_CHANNEL_STATES)[number];

/**
 * upto_channels.last_action: the channel step the keeper's last look took (or would have taken: ../keeper/decide.ts),
 * or none.
 */
export const UPTO_KEEPER_ACTIONS = [
  "seal_and_distribute",
  "seal_expired_and_distribute",
  "distribute",
  "reclaim",
  NO_KEEPER_ACTION,
] as const;
export type UptoKeeperAction = (typeof UPTO_KEEPER_ACTIONS)[number];
