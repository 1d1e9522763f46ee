import type { Env } from "../env";
import type { Config } from "../platform/config/load-config";
import type { JobRunSummary } from "./job-run";

/**
 * One scheduled job: a name for logs and its `job_runs` row, a function that does one bounded run, and how that run
 * is summarised for /health (outcome, lamports the fee payer spent).
 */
// biome-ignore lint/suspicious/noExplicitAny: a list holds jobs of every result type; each summarize takes its run's
export interface ScheduledJob<R = any> {
  name: string;
  run: (config: Config, env: Env) => Promise<R>;
  summarize: (result: R) => JobRunSummary;
}
