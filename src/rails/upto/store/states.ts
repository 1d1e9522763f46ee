import { KEEPER_ROW_STATES } from "../../../store/states";

/** The closed value sets of the upto rail's channel table, in code and (migration 0012) as each column's CHECK. */

/**
 * upto_channels.state: opening (written before the Open is sent; not queued), a keeper row, or voided (an open that
 * never reached the cluster, kept only by rows written before opening rows were deleted instead).
 */
export const UPTO_CHANNEL_STATES = ["opening", ...KEEPER_ROW_STATES, "voided"] as const;
export type UptoChannelState = (typeof UPTO_CHANNEL_STATES)[number];
