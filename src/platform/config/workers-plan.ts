/**
 * The Cloudflare Workers plan a deployment runs on (SVC_WORKERS_PLAN). It bounds the subrequests one invocation may
 * make — RPC fetches, D1 queries and KV operations all count (developers.cloudflare.com/workers/platform/limits/,
 * read 2026-11): Workers Free 50, Workers Paid 10,000 (accounts on the older Standard/Unbound limits: 1,000, which
 * the paid budgets of the jobs are sized for: sweep 200 + escrow keeper 350 + upto keeper 100 on one trigger).
 *
 * On Free the jobs of one Cron Trigger cannot share an invocation (each needs ~17–22 subrequests for a single item,
 * see each `budget.ts`), so each invocation runs one of them in turn (jobs/scheduled.ts), within
 * FREE_PLAN_JOB_SUBREQUEST_BUDGET; an operator route running a job gets the same budget.
 */
export const WORKERS_PLANS = ["paid", "free"] as const;
export type WorkersPlan = (typeof WORKERS_PLANS)[number];

export const FREE_PLAN_SUBREQUESTS_PER_INVOCATION = 50;
/**
 * What a job may use on Free: the invocation's 50 less the config read (1 D1 query), its job_runs row (1) and a margin.
 */
export const FREE_PLAN_JOB_SUBREQUEST_BUDGET = FREE_PLAN_SUBREQUESTS_PER_INVOCATION - 5;

/**
 * The resource directory's share on Free. A manifest harvest writes each entry (1 D1 query each) and the probe job
 * fetches each resource: one probe run is at most 1 due-manifests query + 1 manifest fetch + 1 origin-proof write +
 * FREE_PLAN_MANIFEST_ENTRIES upserts + 1 bookkeeping batch + 1 due-resources query + FREE_PLAN_PROBES_PER_RUN fetches
 * + 1 write batch + 1 index query + 1 KV put = 38 ≤ 45; an on-demand harvest (POST /resources/harvest) of that many
 * entries, each probed inline (upsert, fetch, write), stays under 50 with its challenge's queries.
 */
export const FREE_PLAN_MANIFEST_ENTRIES = 10;
export const FREE_PLAN_PROBES_PER_RUN = 20;

/** A job's subrequest budget under `plan`, given its budget on Workers Paid. */
export function jobSubrequestBudget(plan: WorkersPlan, paidBudget: number): number {
  return plan === "free" ? Math.min(paidBudget, FREE_PLAN_JOB_SUBREQUEST_BUDGET) : paidBudget;
}
