import { MAX_SIGNATURES_PER_STATUS_READ } from "../../chain/confirm-many";

/**
 * The subrequest arithmetic every keeper run shares; each rail's budget.ts adds its own D1 round trips and reads and
 * names its share of the Cron invocation (they run one after the other on RAIL_JOBS_CRON with the sweep).
 *
 * Every keeper run of N rows (each sent, every poll needed) makes at most:
 *   RPC: the rows' accounts + the Clock sysvar                                               → ceil((N + 1) / 100)
 *        funding statuses (rows the ledger does not show confirmed or failed) 2 × ceil(N / 256)
 *        + isBlockhashValid of fundings never seen                                           ≤ KEEPER_BLOCKHASH_CHECKS
 *        getLatestBlockhash 1 + sendTransaction N + getSignatureStatuses ≤ KEEPER_CONFIRM_POLLS × ceil(N / 256)
 *   D1:  the steps' fees booked in the exposure budget (two bookings at once) 2
 *        + their trim to the steps really sent ≤ 2
 *                                                                                            = KEEPER_BUDGET_QUERIES
 */
export const KEEPER_BUDGET_QUERIES = 4;
export const KEEPER_CONFIRM_POLLS = 8;
/** Distinct funding blockhashes a run asks about; rows beyond them are looked at again in the next run. */
export const KEEPER_BLOCKHASH_CHECKS = 4;
/** How long a run's claim keeps other runs off its rows (longer than one run's sends and polls). */
export const KEEPER_CLAIM_MS = 120_000;
const MAX_ACCOUNTS_PER_READ = 100;

/** getMultipleAccounts calls for `accounts` addresses. */
export function accountReads(accounts: number): number {
  return Math.ceil(accounts / MAX_ACCOUNTS_PER_READ);
}

/** The RPC calls above for a run of `rows` rows (rows > 0). */
export function sharedKeeperSubrequests(rows: number): number {
  const statusReads = Math.ceil(rows / MAX_SIGNATURES_PER_STATUS_READ);
  return (
    accountReads(rows + 1) +
    2 * statusReads +
    KEEPER_BLOCKHASH_CHECKS +
    1 +
    rows +
    KEEPER_CONFIRM_POLLS * statusReads +
    KEEPER_BUDGET_QUERIES
  );
}

/** The largest run whose worst case fits `budget`. */
export function largestRunWithin(budget: number, worstCaseSubrequests: (rows: number) => number): number {
  let rows = 0;
  while (worstCaseSubrequests(rows + 1) <= budget) rows++;
  return rows;
}
