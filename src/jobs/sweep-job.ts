import type { ScheduledJob } from "./scheduled";
import { defaultSweepOptions, runSweep } from "./sweep/run-sweep";

/** The Cron Trigger's sweep: the same engine with the configured defaults, within SWEEP_JOB_SUBREQUEST_BUDGET (./sweep/budget.ts). */
export const sweepJob: ScheduledJob = {
  name: "sweep",
  run: (config, env) => runSweep(config, env.DB, defaultSweepOptions(config, "cron")),
};
