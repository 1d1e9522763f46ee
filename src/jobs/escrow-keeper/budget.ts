import { MAX_SIGNATURES_PER_STATUS_READ } from "../../solana/confirm-many";

/**
 * Subrequest arithmetic of one escrow keeper run. It shares the SWEEP_CRON invocation with the sweep
 * (SWEEP_JOB_SUBREQUEST_BUDGET = 200): 200 + 150 = 350 fits the 1,000 of the oldest paid plan; a Workers Free
 * deployment (50 in all) must lower both (e.g. sweep 25, keeper 20 → 10 payments per run).
 *
 * Worst case for N payments (every one paid out, every poll needed):
 *   D1: claim 1 + outcomes 1 (one batch)                                                   = 2
 *   RPC: read 1 = payments + distinct mints (≤ N) + the Clock sysvar → ≤ ceil((2N + 1) / 100)
 *        read 2 = recipient and oracle-tip token accounts             → ≤ ceil(2N / 100)
 *        getLatestBlockhash 1 + sendTransaction N + getSignatureStatuses ≤ KEEPER_CONFIRM_POLLS × ceil(N / 256)
 */
export const ESCROW_KEEPER_SUBREQUEST_BUDGET = 150;
export const KEEPER_CONFIRM_POLLS = 8;
/** How long a run's claim keeps other runs off its payments (longer than one run's sends and polls). */
export const CLAIM_MS = 120_000;
const MAX_ACCOUNTS_PER_READ = 100;

export function worstCaseSubrequests(payments: number): number {
  if (payments === 0) return 1;
  const reads = Math.ceil((2 * payments + 1) / MAX_ACCOUNTS_PER_READ) + Math.ceil((2 * payments) / MAX_ACCOUNTS_PER_READ);
  return 2 + reads + 1 + payments + KEEPER_CONFIRM_POLLS * Math.ceil(payments / MAX_SIGNATURES_PER_STATUS_READ);
}

export function maxPaymentsWithinBudget(budget: number = ESCROW_KEEPER_SUBREQUEST_BUDGET): number {
  let payments = 0;
  while (worstCaseSubrequests(payments + 1) <= budget) payments++;
  return payments;
}
