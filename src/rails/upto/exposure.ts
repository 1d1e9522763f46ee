import type { RailExposure } from "../../chain/fee-payer-budget/rail-exposure";
import { OPENS_WINDOW_MS } from "./channel-rent-caps";
import { UPTO_BUDGET_REJECTION_REASONS } from "./reasons";
import { CHANNEL_RENT_ROWS, channelHealthFiguresSql } from "./store/channel-rent";

/**
 * The upto rail in the fee payer's exposure budget: its channels' rent (counted by every held booking's caps), the
 * refusals of its channel caps, and those caps in /health (`uptoOpenChannels`, then each cap's tightest wallet).
 */
export const uptoExposure: RailExposure = {
  rentRows: CHANNEL_RENT_ROWS,
  reasons: UPTO_BUDGET_REJECTION_REASONS,
  health: {
    figuresSql: (nowMs) => channelHealthFiguresSql(nowMs - OPENS_WINDOW_MS),
    report: (config, figures) => {
      const caps = config.upto.openCaps;
      return {
        members: { uptoOpenChannels: Number(figures.liveChannels ?? 0) },
        caps: {
          uptoChannelsPerPayer: {
            key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER",
            limit: caps.channelsPerPayer,
            used: Number(figures.channelsOfOnePayer ?? 0),
          },
          uptoChannelsPerPayTo: {
            key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO",
            limit: caps.channelsPerPayTo,
            used: Number(figures.channelsOfOnePayTo ?? 0),
          },
          uptoOpensPerPayerPerHour: {
            key: "SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR",
            limit: caps.opensPerPayerPerHour,
            used: Number(figures.opensOfOnePayerSince ?? 0),
          },
        },
      };
    },
  },
};
