import { describe, expect, it } from "vitest";
import {
  FREE_PLAN_SUBREQUESTS_PER_INVOCATION,
  jobSubrequestBudget,
} from "../../../../src/platform/config/workers-plan";
import {
  maxRailsPerRun,
  maxRailsWithinBudget,
  SWEEP_JOB_SUBREQUEST_BUDGET,
  worstCaseSubrequests as sweepWorstCase,
} from "../../../../src/rails/exact/sweep/budget";
import {
  ESCROW_KEEPER_SUBREQUEST_BUDGET,
  worstCaseSubrequests as escrowWorstCase,
  maxPaymentsPerRun,
  maxPaymentsWithinBudget,
} from "../../../../src/rails/sla-escrow/keeper/budget";
import {
  maxChannelsWithinBudget,
  UPTO_KEEPER_SUBREQUEST_BUDGET,
  worstCaseSubrequests as uptoWorstCase,
} from "../../../../src/rails/upto/keeper/budget";

/**
 * Besides a job's own subrequests, its invocation reads the configuration (1 D1 query) and records its job_runs row
 * (1).
 */
const INVOCATION_OVERHEAD = 2;

describe("SVC_WORKERS_PLAN: the subrequests one job run may make", () => {
  it("Workers Paid keeps each job's own budget (sweep 200, escrow keeper 350, upto keeper 100)", () => {
    expect(maxRailsPerRun("paid")).toBe(maxRailsWithinBudget(SWEEP_JOB_SUBREQUEST_BUDGET));
    expect(maxPaymentsPerRun("paid")).toBe(maxPaymentsWithinBudget(ESCROW_KEEPER_SUBREQUEST_BUDGET));
    expect(jobSubrequestBudget("paid", UPTO_KEEPER_SUBREQUEST_BUDGET)).toBe(UPTO_KEEPER_SUBREQUEST_BUDGET);
  });

  it(
    "on Workers Free each job's worst case, alone in its invocation, fits the 50 subrequests and still takes on " +
      "work",
    () => {
      const free = [
        { job: "sweep", rows: maxRailsPerRun("free"), worstCase: sweepWorstCase },
        { job: "escrow keeper", rows: maxPaymentsPerRun("free"), worstCase: escrowWorstCase },
        {
          job: "upto keeper",
          rows: maxChannelsWithinBudget(jobSubrequestBudget("free", UPTO_KEEPER_SUBREQUEST_BUDGET)),
          worstCase: uptoWorstCase,
        },
      ];
      for (const { job, rows, worstCase } of free) {
        expect(rows, job).toBeGreaterThanOrEqual(1);
        expect(worstCase(rows) + INVOCATION_OVERHEAD, job).toBeLessThanOrEqual(FREE_PLAN_SUBREQUESTS_PER_INVOCATION);
      }
      // Three jobs of one trigger could not share one Free invocation even with a single item each: hence one job per
      // invocation.
      expect(sweepWorstCase(1) + escrowWorstCase(1) + uptoWorstCase(1) + 3 * INVOCATION_OVERHEAD).toBeGreaterThan(
        FREE_PLAN_SUBREQUESTS_PER_INVOCATION,
      );
    },
  );
});

describe("Cron invocations on each plan", async () => {
  const { jobsOfInvocation, jobsByCron, RAIL_JOBS_CRON, CORE_JOBS_CRON } = await import(
    "../../../../src/jobs/scheduled"
  );
  const { RAILS } = await import("../../../../src/rails/registry");
  const JOBS_BY_CRON = jobsByCron(RAILS);
  const names = (cron: string, plan: "paid" | "free", atMs: number) =>
    jobsOfInvocation(JOBS_BY_CRON[cron]!, cron, plan, atMs).map((j) => j.name);

  it("Workers Paid runs every job of the trigger in each invocation", () => {
    expect(names(RAIL_JOBS_CRON, "paid", Date.parse("2026-11-28T10:15:00Z"))).toEqual([
      "sweep",
      "escrow-keeper",
      "upto-keeper",
    ]);
  });

  it("Workers Free runs one job per invocation, each in turn at consecutive trigger times", () => {
    for (const [cron, periodMs] of [
      [RAIL_JOBS_CRON, 15 * 60_000],
      [CORE_JOBS_CRON, 10 * 60_000],
    ] as const) {
      const all = JOBS_BY_CRON[cron]!.map((j) => j.name);
      const start = Date.parse("2026-11-28T10:00:00Z");
      const seen = Array.from({ length: all.length }, (_, i) => names(cron, "free", start + i * periodMs));
      expect(seen.every((one) => one.length === 1)).toBe(true);
      expect(seen.flat().sort()).toEqual([...all].sort());
    }
  });
});
