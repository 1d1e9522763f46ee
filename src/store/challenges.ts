import { database } from "./db";
import { consumedChallenges } from "./schema";

/**
 * Marks a wallet challenge as used. The nonce is the table's primary key, so of two concurrent consumers in
 * any isolates exactly one insert succeeds: `false` means the challenge was already used (a replay).
 */
export async function consumeChallengeNonce(
  d1: D1Database,
  challenge: { nonce: string; wallet: string; action: string; expiresAtMs: number; nowMs: number },
): Promise<boolean> {
  const inserted = await database(d1)
    .insert(consumedChallenges)
    .values({
      nonce: challenge.nonce,
      wallet: challenge.wallet,
      action: challenge.action,
      expiresAtMs: challenge.expiresAtMs,
      consumedAtMs: challenge.nowMs,
    })
    .onConflictDoNothing({ target: consumedChallenges.nonce })
    .returning({ nonce: consumedChallenges.nonce });
  return inserted.length === 1;
}
