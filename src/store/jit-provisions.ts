import { and, eq } from "drizzle-orm";
import { database } from "./db";
import { jitProvisions } from "./schema";

/**
 * Claims one just-in-time provisioning for (seller, asset) within today's cap, atomically: the count and the
 * insert are one statement, so concurrent settles cannot overshoot the cap, and the unique key lets only
 * one of them provision a given vault.
 */
export async function claimJitProvision(
  d1: D1Database,
  claim: { sellerWallet: string; asset: string; dailyCap: number; nowMs: number },
): Promise<"claimed" | "already_claimed" | "cap_reached"> {
  const day = new Date(claim.nowMs).toISOString().slice(0, 10);
  const result = await d1
    .prepare(
      `INSERT INTO jit_provisions (day, seller_wallet, asset, created_at_ms)
       SELECT ?1, ?2, ?3, ?4 WHERE (SELECT COUNT(*) FROM jit_provisions WHERE day = ?1) < ?5
       ON CONFLICT (seller_wallet, asset) DO NOTHING`,
    )
    .bind(day, claim.sellerWallet, claim.asset, claim.nowMs, claim.dailyCap)
    .run();
  if ((result.meta.changes ?? 0) > 0) return "claimed";
  const existing = await database(d1)
    .select({ id: jitProvisions.id })
    .from(jitProvisions)
    .where(and(eq(jitProvisions.sellerWallet, claim.sellerWallet), eq(jitProvisions.asset, claim.asset)))
    .limit(1);
  return existing.length > 0 ? "already_claimed" : "cap_reached";
}

export async function recordJitSignature(d1: D1Database, sellerWallet: string, asset: string, signature: string): Promise<void> {
  await database(d1)
    .update(jitProvisions)
    .set({ signature })
    .where(and(eq(jitProvisions.sellerWallet, sellerWallet), eq(jitProvisions.asset, asset)));
}

/** Gives a claim back when provisioning failed, so a later payment may try again. */
export async function releaseJitProvision(d1: D1Database, sellerWallet: string, asset: string): Promise<void> {
  await database(d1).delete(jitProvisions).where(and(eq(jitProvisions.sellerWallet, sellerWallet), eq(jitProvisions.asset, asset)));
}

/** Vaults fronted (claimed) on the given UTC day, for the operator's view in /health. */
export async function countJitProvisionsOn(d1: D1Database, nowMs: number): Promise<number> {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  const row = await d1.prepare("SELECT COUNT(*) AS n FROM jit_provisions WHERE day = ?").bind(day).first<{ n: number }>();
  return row?.n ?? 0;
}
