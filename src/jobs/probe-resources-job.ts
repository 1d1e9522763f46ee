import { type ProbeRunSummary, runProbeJob } from "../directory/resources/probe-run";
import { spentNothing } from "./job-run";
import type { ScheduledJob } from "./scheduled-job";

/**
 * The Cron Trigger's resource probe and manifest harvest, within the budget documented in ../resources/probe-run.ts.
 */
export const probeResourcesJob: ScheduledJob<ProbeRunSummary> = {
  name: "probe-resources",
  run: (config, env) => runProbeJob(config, env),
  summarize: (summary) =>
    spentNothing(`probed ${summary.probed} (${summary.passed} passed), ${summary.manifests} manifests`),
};
