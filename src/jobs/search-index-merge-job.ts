import { mergeSearchIndex } from "../directory/resources/search-index-merge";
import { spentNothing } from "./job-run";
import type { ScheduledJob } from "./scheduled-job";

/** The Cron Trigger's bounded FTS merge (../resources/search-index-merge.ts). */
export const searchIndexMergeJob: ScheduledJob<{ changes: number }> = {
  name: "search-index-merge",
  run: (_config, env) => mergeSearchIndex(env.DB),
  summarize: ({ changes }) => spentNothing(`${changes} changes`),
};
