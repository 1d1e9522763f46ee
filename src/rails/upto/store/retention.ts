import { purgeFinishedRowsBefore } from "../../../store/keeper-queue";
import type { RailRetention } from "../../rail";
import { UPTO_CHANNELS_TABLE } from "./upto-channels";

const DAY_MS = 86_400_000;

/** What the retention job purges of this rail's tables. */
export const uptoRetention: readonly RailRetention[] = [
  {
    // The keeper's finished channel rows (closed, dropped, stuck), after the core's keeper row retention.
    outcome: "uptoChannelRowsDeleted",
    before: (config, nowMs) => nowMs - config.limits.keeperRowRetentionDays * DAY_MS,
    purge: (db, beforeMs, batchSize) => purgeFinishedRowsBefore(db, UPTO_CHANNELS_TABLE, beforeMs, batchSize),
  },
];
