/**
 * How a keeper treats a row it could not move forward (escrow: recipient without a token account, payout refused by
 * preflight or failed on chain, mint missing; upto: a split that does not pay the seller, a step refused or failed):
 * the next look waits twice as long each time, and after KEEPER_MAX_ATTEMPTS such checks in a row the row is given up
 * ("stuck"; anyone may still take the step, the program allows it). A due row that never failed is always claimed
 * before one that did (see the claim queries in store/escrow-watch.ts and store/upto-channels.ts).
 */
export const KEEPER_RETRY_BASE_MS = 10 * 60_000;
export const KEEPER_RETRY_MAX_DELAY_MS = 24 * 60 * 60_000;
/** 10 min, 20 min, … 21 h 20 min: about 42 hours from the first failure to giving up. */
export const KEEPER_MAX_ATTEMPTS = 8;

export type AfterFailure =
  | { state: "open"; failures: number; nextCheckAtMs: number }
  | { state: "stuck"; failures: number; nextCheckAtMs: number };

/** `failuresBefore` consecutive failures so far; this check failed too. */
export function afterFailedAttempt(failuresBefore: number, nowMs: number): AfterFailure {
  const failures = failuresBefore + 1;
  if (failures >= KEEPER_MAX_ATTEMPTS) return { state: "stuck", failures, nextCheckAtMs: nowMs };
  const delayMs = Math.min(KEEPER_RETRY_MAX_DELAY_MS, KEEPER_RETRY_BASE_MS * 2 ** (failures - 1));
  return { state: "open", failures, nextCheckAtMs: nowMs + delayMs };
}
