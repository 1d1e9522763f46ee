import { accountReads, largestRunWithin, sharedKeeperSubrequests } from "../../../jobs/keeper/budget";
import { jobSubrequestBudget, type WorkersPlan } from "../../../platform/config/workers-plan";

/**
 * Subrequest arithmetic of one escrow keeper run. It shares the RAIL_JOBS_CRON invocation with the sweep
 * (SWEEP_JOB_SUBREQUEST_BUDGET = 200): 200 + 350 = 550 fits the 1,000 of the oldest paid plan (350: the payout
 * re-checks and the reads that find a token account a payout created keep a run above 100 payments). On Workers Free
 * (SVC_WORKERS_PLAN=free) a run has an invocation of its own and FREE_PLAN_JOB_SUBREQUEST_BUDGET
 * (src/platform/config/workers-plan.ts).
 *
 * Worst case for N payments: what every keeper run makes (../keeper/budget.ts), plus
 *   D1: claim with the ledger rows 1 + ledger catch-up 1 + failed sponsored fundings 1 + outcomes 1 (batches) = 4
 *   RPC: mints (from the Payment accounts) + recipient and oracle-tip token accounts under both token programs
 *                                                                                   → ≤ ceil(5N / 100)
 *   RPC: those token accounts read again just before the sends (./payout-accounts.ts) → ≤ ceil(2N / 100)
 *        + getTransaction of each confirmed payout that could create one                   ≤ N
 *   D1:  today's creations per recipient account 1 + creations found, booked ≤ N (only after a race: rare)
 */
export const ESCROW_KEEPER_SUBREQUEST_BUDGET = 350;

export function worstCaseSubrequests(payments: number): number {
  if (payments === 0) return 1;
  return (
    4 +
    sharedKeeperSubrequests(payments) +
    accountReads(5 * payments) +
    accountReads(2 * payments) +
    payments +
    1 +
    payments
  );
}

export function maxPaymentsWithinBudget(budget: number = ESCROW_KEEPER_SUBREQUEST_BUDGET): number {
  return largestRunWithin(budget, worstCaseSubrequests);
}

/** The most payments one run may take on under the deployment's Workers plan. */
export function maxPaymentsPerRun(plan: WorkersPlan): number {
  return maxPaymentsWithinBudget(jobSubrequestBudget(plan, ESCROW_KEEPER_SUBREQUEST_BUDGET));
}
