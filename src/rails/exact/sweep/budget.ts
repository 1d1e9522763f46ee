/**
 * Subrequest arithmetic of one sweep run (a Cron Trigger invocation or one POST /sweep).
 *
 * Cloudflare's limits (developers.cloudflare.com/workers/platform/limits/, read 2026-11): Workers Free allows
 * 50 subrequests per invocation, Workers Paid 10,000 (older Standard/Unbound accounts: 1,000); D1 queries and
 * RPC fetches both count. The sweep job keeps to its own explicit budget so other jobs on the same trigger
 * (the escrow keeper) keep theirs: SWEEP_JOB_SUBREQUEST_BUDGET fits ten times over in the 1,000 of the
 * oldest paid plan. On Workers Free (SVC_WORKERS_PLAN=free) a run gets FREE_PLAN_JOB_SUBREQUEST_BUDGET instead
 * (src/platform/config/workers-plan.ts).
 *
 * Worst case for N rails (every rail eligible, every account read, the confirmation needing every poll):
 *   D1: candidates 1 + claims 1 (one batch) + outcomes and run summary 1 (one batch) + the job's run row 1
 *       + the exposure budget's bookings of the run's fees and rent 2 + their trim ≤ 2 = 8
 *   RPC: account reads, two rounds of getMultipleAccounts (≤ 100 keys each):
 *        round 1 = Config + per rail vault + SOL storage or mint  → ≤ ceil((2N + 1) / 100)
 *        round 2 = per SPL rail vault ATA + seller ATA + fee ATA   → ≤ ceil(3N / 100)
 *   RPC: getBalance 1 (fee payer floor) + getLatestBlockhash 1 + sendTransaction N
 *        + getSignatureStatuses ≤ MAX_CONFIRM_POLLS × ceil(N / 256)
 * The runner caps N at the largest value whose worst case fits the budget, so no run can exceed it.
 */
export const SWEEP_JOB_SUBREQUEST_BUDGET = 200;
/** Status polls per 256 sent sweeps before the run stops waiting (the rest are reported unconfirmed). */
export const MAX_CONFIRM_POLLS = 8;
export const MAX_ACCOUNTS_PER_READ = 100;
export { MAX_SIGNATURES_PER_STATUS_READ } from "../../../chain/confirm-many";

import { MAX_SIGNATURES_PER_STATUS_READ } from "../../../chain/confirm-many";
import { jobSubrequestBudget, type WorkersPlan } from "../../../platform/config/workers-plan";

/** Worst-case subrequests of a run over `rails` rails. */
export function worstCaseSubrequests(rails: number): number {
  if (rails === 0) return 1; // the candidate query alone
  const d1 = 8;
  const reads = Math.ceil((2 * rails + 1) / MAX_ACCOUNTS_PER_READ) + Math.ceil((3 * rails) / MAX_ACCOUNTS_PER_READ);
  const sends = 2 + rails + MAX_CONFIRM_POLLS * Math.ceil(rails / MAX_SIGNATURES_PER_STATUS_READ);
  return d1 + reads + sends;
}

/** The most rails one run may take on within `budget` subrequests. */
export function maxRailsWithinBudget(budget: number = SWEEP_JOB_SUBREQUEST_BUDGET): number {
  let rails = 0;
  while (worstCaseSubrequests(rails + 1) <= budget) rails++;
  return rails;
}

/** The most rails one run may take on under the deployment's Workers plan. */
export function maxRailsPerRun(plan: WorkersPlan): number {
  return maxRailsWithinBudget(jobSubrequestBudget(plan, SWEEP_JOB_SUBREQUEST_BUDGET));
}
