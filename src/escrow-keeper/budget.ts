import { MAX_SIGNATURES_PER_STATUS_READ } from "../solana/confirm-many";

/**
 * Subrequest arithmetic of one escrow keeper run. It shares the SWEEP_CRON invocation with the sweep
 * (SWEEP_JOB_SUBREQUEST_BUDGET = 200): 200 + 150 = 350 fits the 1,000 of the oldest paid plan; a Workers Free
 * deployment (50 in all) must lower both (e.g. sweep 20, keeper 30 → 9 payments per run).
 *
 * Worst case for N payments (every one paid out, every poll needed):
 *   D1: claim with the ledger rows 1 + ledger catch-up 1 + failed sponsored fundings 1 + outcomes 1 (batches) = 4
 *   RPC: read 1 = payments + the Clock sysvar                                  → ≤ ceil((N + 1) / 100)
 *        read 2 = mints (from the Payment accounts) + recipient and oracle-tip token
 *                 accounts under both token programs                            → ≤ ceil(5N / 100)
 *        funding statuses (rows not confirmed in the ledger, or without account) → ≤ 2 × ceil(N / 256)
 *        isBlockhashValid of fundings never seen                                 ≤ KEEPER_BLOCKHASH_CHECKS
 *        getLatestBlockhash 1 + sendTransaction N + getSignatureStatuses ≤ KEEPER_CONFIRM_POLLS × ceil(N / 256)
 */
export const ESCROW_KEEPER_SUBREQUEST_BUDGET = 150;
export const KEEPER_CONFIRM_POLLS = 8;
/** Distinct funding blockhashes a run asks about; rows beyond them are looked at again in the next run. */
export const KEEPER_BLOCKHASH_CHECKS = 4;
/** How long a run's claim keeps other runs off its payments (longer than one run's sends and polls). */
export const CLAIM_MS = 120_000;
const MAX_ACCOUNTS_PER_READ = 100;

export function worstCaseSubrequests(payments: number): number {
  if (payments === 0) return 1;
  const statusReads = Math.ceil(payments / MAX_SIGNATURES_PER_STATUS_READ);
  const reads = Math.ceil((payments + 1) / MAX_ACCOUNTS_PER_READ) + Math.ceil((5 * payments) / MAX_ACCOUNTS_PER_READ) + 2 * statusReads + KEEPER_BLOCKHASH_CHECKS;
  return 4 + reads + 1 + payments + KEEPER_CONFIRM_POLLS * statusReads;
}

export function maxPaymentsWithinBudget(budget: number = ESCROW_KEEPER_SUBREQUEST_BUDGET): number {
  let payments = 0;
  while (worstCaseSubrequests(payments + 1) <= budget) payments++;
  return payments;
}
