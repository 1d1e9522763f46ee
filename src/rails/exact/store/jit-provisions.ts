import { and, eq } from "drizzle-orm";
import { database } from "../../../store/db";
import { jitProvisions } from "./tables";

/**
 * Claims one just-in-time provisioning for (seller, asset) within today's cap, atomically: the count and the
 * insert are one statement, so concurrent settles cannot overshoot the cap, and the unique key lets only one of
 * them provision a given vault.
 *
 * What counts against the day's cap: claims that spent rent (their provisioning transaction was sent) and claims
 * still in progress. A claim that never spent anything (the combined simulation refused the payment, the RPC
 * failed) is released, or expires after `claimTtlMs` if its holder vanished, and then counts for nothing.
 */
export async function claimJitProvision(
  d1: D1Database,
  claim: { sellerWallet: string; asset: string; dailyCap: number; nowMs: number; claimTtlMs: number },
): Promise<"claimed" | "already_claimed" | "cap_reached"> {
  const day = new Date(claim.nowMs).toISOString().slice(0, 10);
  const result = await d1
    .prepare(
      `INSERT INTO jit_provisions (day, seller_wallet, asset, created_at_ms, claim_expires_at_ms)
       SELECT ?1, ?2, ?3, ?4, ?6
       WHERE (SELECT COUNT(*) FROM jit_provisions WHERE day = ?1 AND (signature IS NOT NULL OR claim_expires_at_ms > ` +
        `?4)) < ?5
       ON CONFLICT (seller_wallet, asset) DO UPDATE SET day = ?1, created_at_ms = ?4, claim_expires_at_ms = ?6
       WHERE jit_provisions.signature IS NULL AND jit_provisions.claim_expires_at_ms <= ?4`,
    )
    .bind(day, claim.sellerWallet, claim.asset, claim.nowMs, claim.dailyCap, claim.nowMs + claim.claimTtlMs)
    .run();
  if ((result.meta.changes ?? 0) > 0) return "claimed";
  const existing = await database(d1)
    .select({ signature: jitProvisions.signature, claimExpiresAtMs: jitProvisions.claimExpiresAtMs })
    .from(jitProvisions)
    .where(and(eq(jitProvisions.sellerWallet, claim.sellerWallet), eq(jitProvisions.asset, claim.asset)))
    .limit(1);
  const row = existing[0];
  const active = row && (row.signature !== null || row.claimExpiresAtMs > claim.nowMs);
  return active ? "already_claimed" : "cap_reached";
}

/** The provisioning transaction was sent: the rent is spent, so the claim counts for its day from now on. */
export async function recordJitSignature(
  d1: D1Database,
  sellerWallet: string,
  asset: string,
  signature: string,
): Promise<void> {
  await database(d1)
    .update(jitProvisions)
    .set({ signature })
    .where(and(eq(jitProvisions.sellerWallet, sellerWallet), eq(jitProvisions.asset, asset)));
}

/** The payment that needed the vault confirmed. */
export async function confirmJitProvision(
  d1: D1Database,
  sellerWallet: string,
  asset: string,
  nowMs: number,
): Promise<void> {
  await d1
    .prepare(
      "UPDATE jit_provisions SET confirmed_at_ms = COALESCE(confirmed_at_ms, ?) WHERE seller_wallet = ? AND asset = ?",
    )
    .bind(nowMs, sellerWallet, asset)
    .run();
}

/** Gives a claim back when nothing was spent, so a later payment may try again and the cap is not used up. */
export async function releaseJitProvision(d1: D1Database, sellerWallet: string, asset: string): Promise<void> {
  await database(d1)
    .delete(jitProvisions)
    .where(and(eq(jitProvisions.sellerWallet, sellerWallet), eq(jitProvisions.asset, asset)));
}

/** Vaults fronted (rent spent) on the given UTC day, for the operator's view in /health. */
export async function countJitProvisionsOn(d1: D1Database, nowMs: number): Promise<number> {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  const row = await d1
    .prepare("SELECT COUNT(*) AS n FROM jit_provisions WHERE day = ? AND signature IS NOT NULL")
    .bind(day)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * What `claimJitProvision` would answer now, without writing (/verify's look at it): `already_claimed` when an active
 * claim for (seller, asset) exists (settle then waits for that vault), else `cap_reached` when today's cap is used,
 * else `claimable`. One query.
 */
export async function peekJitProvision(
  d1: D1Database,
  claim: { sellerWallet: string; asset: string; dailyCap: number; nowMs: number },
): Promise<"claimable" | "already_claimed" | "cap_reached"> {
  const day = new Date(claim.nowMs).toISOString().slice(0, 10);
  const row = await d1
    .prepare(
      `SELECT (SELECT COUNT(*) FROM jit_provisions WHERE day = ?1 AND (signature IS NOT NULL OR claim_expires_at_ms ` +
        `> ?2)) AS used,
         (SELECT COUNT(*) FROM jit_provisions WHERE seller_wallet = ?3 AND asset = ?4 AND (signature IS NOT NULL OR ` +
        `claim_expires_at_ms > ?2)) AS mine`,
    )
    .bind(day, claim.nowMs, claim.sellerWallet, claim.asset)
    .first<{ used: number; mine: number }>();
  if ((row?.mine ?? 0) > 0) return "already_claimed";
  return (row?.used ?? 0) >= claim.dailyCap ? "cap_reached" : "claimable";
}
