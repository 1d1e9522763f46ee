import type { Hono } from "hono";
import { servedResourceIndex } from "../../directory/resources/resource-index";
import type { AppEnv } from "../context";
import { withReadRateLimit } from "../middleware/rate-limit";
import { STATIC_ARTIFACT_PATHS } from "../self-description/static-artifacts";

/**
 * `/dist/resource-index.json` (docs/facilitator-spec.md §1 rule 4): the probe job's KV snapshot, re-checked against the
 * listing gates.
 */
export function mountResourceIndex(app: Hono<AppEnv>): void {
  app.get(
    STATIC_ARTIFACT_PATHS.resourceIndex,
    withReadRateLimit(async (c) =>
      c.json(await servedResourceIndex(c.env.DB, c.env.KV), 200, {
        "Cache-Control": "public, max-age=60, stale-while-revalidate=300",
      }),
    ),
  );
}
