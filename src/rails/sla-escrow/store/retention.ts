import { purgeFinishedRowsBefore } from "../../../store/keeper-queue";
import type { RailRetention } from "../../rail";
import { ESCROW_WATCH_TABLE } from "./escrow-watch";
import { purgeSponsoredFundingFailuresBefore, SPONSORED_FAILURE_WINDOW_MS } from "./sponsored-funding-failures";

const DAY_MS = 86_400_000;

/** What the retention job purges of this rail's tables, in this order. */
export const slaEscrowRetention: readonly RailRetention[] = [
  {
    // The keeper's finished rows (closed, dropped, stuck) older than SVC_ESCROW_WATCH_RETENTION_DAYS.
    outcome: "escrowWatchRowsDeleted",
    before: (config, nowMs) => nowMs - config.limits.keeperRowRetentionDays * DAY_MS,
    purge: (db, beforeMs, batchSize) => purgeFinishedRowsBefore(db, ESCROW_WATCH_TABLE, beforeMs, batchSize),
  },
  {
    // Failed sponsored fundings older than the window they are counted in.
    outcome: "sponsoredFailuresDeleted",
    before: (_config, nowMs) => nowMs - SPONSORED_FAILURE_WINDOW_MS,
    purge: purgeSponsoredFundingFailuresBefore,
  },
];
