/**
 * Origin proofs (issue 22 §1): which origin a seller wallet has shown it controls. Written when the wallet's Seller
 * Resource Manifest names it, cleared when a manifest fetch answers definitely without it; the probe queue joins on
 * `providers.proven_origin`, so nothing on an unproven origin is probed.
 */

/** Records that `origin` named `wallet` at `nowMs`. */
export function recordOriginProof(d1: D1Database, wallet: string, origin: string, nowMs: number): Promise<D1Result> {
  return d1.prepare("UPDATE providers SET proven_origin = ?2, origin_proven_at_ms = ?3 WHERE wallet_pubkey = ?1").bind(wallet, origin, nowMs).run();
}

/**
 * The origin no longer names the wallet: the proof goes, and every resource of the wallet on that origin leaves the
 * listings at once (and the probe queue, which requires the proof). One D1 batch.
 */
export async function revokeOriginProof(d1: D1Database, wallet: string, origin: string): Promise<void> {
  await d1.batch([
    d1.prepare("UPDATE providers SET proven_origin = NULL, origin_proven_at_ms = NULL WHERE wallet_pubkey = ?1 AND proven_origin = ?2").bind(wallet, origin),
    d1
      .prepare("UPDATE resources SET listed = 0, last_probe_ok = 0 WHERE wallet_pubkey = ?1 AND merchant_origin = ?2 AND (listed = 1 OR last_probe_ok = 1)")
      .bind(wallet, origin),
  ]);
}
