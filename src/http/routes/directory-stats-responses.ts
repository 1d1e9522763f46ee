import * as v from "valibot";
import { Instant, Integer } from "../responses/fields";

/** Success body of `/directory/stats` (routes/directory-stats.ts). */

export const DirectoryStatsResponseSchema = v.looseObject({
  network: v.string(),
  providers: v.looseObject({ total: Integer }),
  resources: v.looseObject({ total: Integer, byScheme: v.record(v.string(), Integer) }),
  asOf: Instant,
});
