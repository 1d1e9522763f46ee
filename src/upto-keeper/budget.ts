import { MAX_SIGNATURES_PER_STATUS_READ } from "../solana/confirm-many";
import { KEEPER_BLOCKHASH_CHECKS } from "../escrow-keeper/budget";

/**
 * Subrequest arithmetic of one upto keeper run. It shares the SWEEP_CRON invocation with the sweep (200) and the
 * escrow keeper (150): 200 + 150 + 100 = 450 fits the 1,000 of the oldest paid plan; a Workers Free deployment
 * (50 in all) must lower all three.
 *
 * Worst case for N channels (every one closed, every poll needed):
 *   D1: claim with the ledger rows 1 (batch) + ledger catch-up 1 + outcomes 1 (batch)             = 3
 *   RPC: channels + the Clock sysvar                                                         → ceil((N + 1) / 100)
 *        deposit statuses (ledger not confirmed yet) 2 × ceil(N / 256) + ≤ KEEPER_BLOCKHASH_CHECKS blockhash checks
 *        getLatestBlockhash 1 + sendTransaction N + getSignatureStatuses ≤ UPTO_KEEPER_CONFIRM_POLLS × ceil(N / 256)
 */
export const UPTO_KEEPER_SUBREQUEST_BUDGET = 100;
export const UPTO_KEEPER_CONFIRM_POLLS = 8;
/** How long a run's claim keeps other runs off its channels (longer than one run's sends and polls). */
export const UPTO_KEEPER_CLAIM_MS = 120_000;
const MAX_ACCOUNTS_PER_READ = 100;

export function worstCaseSubrequests(channels: number): number {
  if (channels === 0) return 1;
  const statusReads = Math.ceil(channels / MAX_SIGNATURES_PER_STATUS_READ);
  return 3 + Math.ceil((channels + 1) / MAX_ACCOUNTS_PER_READ) + 2 * statusReads + KEEPER_BLOCKHASH_CHECKS + 1 + channels + UPTO_KEEPER_CONFIRM_POLLS * statusReads;
}

export function maxChannelsWithinBudget(budget: number = UPTO_KEEPER_SUBREQUEST_BUDGET): number {
  let channels = 0;
  while (worstCaseSubrequests(channels + 1) <= budget) channels++;
  return channels;
}
