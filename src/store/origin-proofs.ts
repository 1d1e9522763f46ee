/**
 * Origin proofs (docs/directory-and-agents.md, Origin proof): which origin a seller wallet has shown it controls.
 * Written when the wallet's Seller Resource Manifest names it, cleared when a manifest fetch answers definitely without
 * it; the probe queue joins on `providers.proven_origin`, so nothing on an unproven origin is probed. A wallet proves
 * one origin at a time (its serviceUrl's): resources it left behind on another origin leave the listings.
 */

/** Records that `origin` named `wallet` at `nowMs`; the wallet's resources on any other origin are unlisted. */
export async function recordOriginProof(d1: D1Database, wallet: string, origin: string, nowMs: number): Promise<void> {
  await d1.batch([
    d1
      .prepare("UPDATE providers SET proven_origin = ?2, origin_proven_at_ms = ?3 WHERE wallet_pubkey = ?1")
      .bind(wallet, origin, nowMs),
    d1
      .prepare(
        "UPDATE resources SET listed = 0, last_probe_ok = 0 WHERE wallet_pubkey = ?1 AND merchant_origin IS NOT ?2 " +
          "AND (listed = 1 OR last_probe_ok = 1)",
      )
      .bind(wallet, origin),
  ]);
}

/**
 * The wallet's origin no longer names it: the proof goes, and every resource of the wallet leaves the listings at once
 * (and the probe queue, which requires the proof). One D1 batch.
 */
export async function revokeOriginProof(d1: D1Database, wallet: string): Promise<void> {
  await d1.batch([
    d1
      .prepare("UPDATE providers SET proven_origin = NULL, origin_proven_at_ms = NULL WHERE wallet_pubkey = ?1")
      .bind(wallet),
    d1
      .prepare(
        "UPDATE resources SET listed = 0, last_probe_ok = 0 WHERE wallet_pubkey = ?1 AND (listed = 1 OR " +
          "last_probe_ok = 1)",
      )
      .bind(wallet),
  ]);
}
