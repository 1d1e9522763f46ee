import { database } from "./db";
import { jobRuns } from "./schema";

export type { JobRunOutcome } from "./states";

import type { JobRunOutcome } from "./states";

export interface JobRunRecord {
  job: string;
  trigger: string;
  startedAtMs: number;
  finishedAtMs: number;
  outcome: JobRunOutcome;
  lamportsSpent: bigint;
  detail: string | null;
}

export type JobRunRow = typeof jobRuns.$inferSelect;

/** Replaces the job's last run (one row per job): a single upsert. */
export async function recordJobRun(d1: D1Database, run: JobRunRecord): Promise<void> {
  await d1
    .prepare(
      `INSERT INTO job_runs (job, trigger, started_at_ms, finished_at_ms, outcome, lamports_spent, detail) VALUES ` +
        `(?1, ?2, ?3, ?4, ?5, ?6, ?7)
       ON CONFLICT(job) DO UPDATE SET trigger = ?2, started_at_ms = ?3, finished_at_ms = ?4, outcome = ?5, ` +
        `lamports_spent = ?6, detail = ?7`,
    )
    .bind(
      run.job,
      run.trigger,
      run.startedAtMs,
      run.finishedAtMs,
      run.outcome,
      run.lamportsSpent.toString(),
      run.detail === null ? null : run.detail.slice(0, 500),
    )
    .run();
}

/** Every job's last run (a handful of rows). */
export async function lastJobRuns(d1: D1Database): Promise<JobRunRow[]> {
  return database(d1).select().from(jobRuns);
}
