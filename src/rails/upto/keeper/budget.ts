import { accountReads, largestRunWithin, sharedKeeperSubrequests } from "../../../jobs/keeper/budget";

/**
 * Subrequest arithmetic of one upto keeper run. It shares the RAIL_JOBS_CRON invocation with the sweep (200) and the
 * escrow keeper (350): 200 + 350 + 100 = 650 fits the 1,000 of the oldest paid plan; a Workers Free deployment
 * (50 in all) must lower all three.
 *
 * Worst case for N channels: what every keeper run makes (../keeper/budget.ts), plus
 *   D1: claim with the ledger rows 1 (batch) + ledger catch-up 1 + outcomes 1 (batch) = 3
 *   RPC: each channel's buyer token account, read in the same getMultipleAccounts as the channels and the clock
 *        (N more addresses: ceil((2N + 1) / 100) reads instead of ceil((N + 1) / 100))
 */
export const UPTO_KEEPER_SUBREQUEST_BUDGET = 100;

export function worstCaseSubrequests(channels: number): number {
  if (channels === 0) return 1;
  return 3 + sharedKeeperSubrequests(channels) + accountReads(2 * channels + 1) - accountReads(channels + 1);
}

export function maxChannelsWithinBudget(budget: number = UPTO_KEEPER_SUBREQUEST_BUDGET): number {
  return largestRunWithin(budget, worstCaseSubrequests);
}
