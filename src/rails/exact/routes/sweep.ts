import { type RouteDef, route } from "../../../http/route-def";
import { runRecorded } from "../../../jobs/job-run";
import type { Config } from "../../../platform/config/load-config";
import { RAIL_SWITCH_REASONS } from "../../../platform/config/rail-switches";
import { defaultSweepOptions, runSweep, type SweepOptions } from "../sweep/run-sweep";
import { SweepBodySchema } from "../sweep/sweep-inputs";
import { summarizeSweep, sweepJob } from "../sweep/sweep-job";
import { SweepResponseSchema } from "./responses";

/** A sweep started by an operator route: a real run is recorded as the job's last run (/health), a dry run is not. */
function recordedSweep(config: Config, db: D1Database, options: SweepOptions) {
  const run = () => runSweep(config, db, options);
  return options.dryRun ? run() : runRecorded(db, sweepJob.name, options.trigger, run, summarizeSweep);
}

/** `/sweep`, `/sweep-cron`: the split-vault sweep behind the operator bearer (docs/facilitator-spec.md §4.5). */
export function sweepRoutes(): RouteDef[] {
  return [
    route({
      key: "sweep",
      reasons: [...RAIL_SWITCH_REASONS],
      method: "POST",
      path: "/sweep",
      tag: "Operator",
      auth: "bearer",
      summary:
        "Sweep eligible split vaults to their sellers (dryRun: true lists without changing anything); empty body = " +
        "configured defaults",
      body: SweepBodySchema,
      emptyBodyIsDefaults: true,
      response: SweepResponseSchema,
      handler: async (c, { body }) => {
        const defaults = defaultSweepOptions(c.var.config, "http");
        return c.json(
          await recordedSweep(c.var.config, c.env.DB, {
            ...defaults,
            dryRun: body.dryRun ?? false,
            limit: body.limit ?? defaults.limit,
            cooldownSeconds: body.cooldownSeconds ?? defaults.cooldownSeconds,
            requireRecentSettleWithinSeconds:
              body.requireRecentSettleWithinSeconds ?? defaults.requireRecentSettleWithinSeconds,
          }),
        );
      },
    }),
    route({
      key: "sweepCron",
      reasons: [...RAIL_SWITCH_REASONS],
      method: "GET",
      path: "/sweep-cron",
      tag: "Operator",
      auth: "bearer",
      summary: "The same sweep with the configured defaults, for schedulers that issue GET",
      response: SweepResponseSchema,
      handler: async (c) =>
        c.json(await recordedSweep(c.var.config, c.env.DB, defaultSweepOptions(c.var.config, "http-cron"))),
    }),
  ];
}
