import { FacilitatorError } from "../../platform/errors/catalogue";
import { recordOriginProof, revokeOriginProof } from "../../store/origin-proofs";
import type { ProviderRow } from "../../store/providers";
import { PROBE_TIMEOUT_MS, PROBE_USER_AGENT, readCapped } from "./probe";
import { judgeProbeHost } from "./ssrf-guard";

/**
 * Proof that a seller controls the origin it names (docs/directory-and-agents.md). The origin's Seller Resource
 * Manifest (`{origin}/.well-known/x402-resources.json`) must name the seller's wallet, as `merchantWallet` (pr402's
 * format) or in `merchantWallets` (several sellers on one origin). Only someone who controls the origin can put that
 * document there, and it binds the origin to a wallet without any state of ours to hand out (RFC 8615 well-known
 * location).
 *
 * Until a wallet has proven an origin, the only request the facilitator sends there is this one GET of the
 * well-known document: no resource on it is stored, probed or listed. The proof is recorded in D1, re-checked on
 * every manifest harvest (on demand and by the probe cron); a definite answer without the wallet revokes it and
 * unlists the wallet's resources on that origin, a timeout or 5xx leaves it as it was.
 */
export const MANIFEST_PATH = "/.well-known/x402-resources.json";
export const MANIFEST_MAX_BYTES = 256 * 1024;

export type ManifestFetch =
  | { ok: true; document: unknown }
  /** `transient`: a timeout, a failed connection or a 5xx, which says nothing about the origin's consent. */
  | { ok: false; transient: boolean; error: string };

/** GETs the manifest under the probe's rules: SSRF guard, 5 s deadline, no redirect, 256 KiB cap, our User-Agent. */
export async function fetchManifestDocument(origin: string, allowLoopback: boolean): Promise<ManifestFetch> {
  const url = new URL(MANIFEST_PATH, origin);
  const verdict = judgeProbeHost(url, { allowLoopback });
  if (!verdict.allowed) return { ok: false, transient: false, error: `manifest: refused, ${verdict.reason}` };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
  try {
    const response = await fetch(url.href, {
      redirect: "manual",
      signal: controller.signal,
      headers: { Accept: "application/json", "User-Agent": PROBE_USER_AGENT },
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      return {
        ok: false,
        transient: response.status >= 500,
        error: `manifest: ${url.href} answered HTTP ${response.status} (redirects are not followed)`,
      };
    }
    const text = await readCapped(response, MANIFEST_MAX_BYTES, controller.signal);
    if (text === null)
      return { ok: false, transient: false, error: `manifest: larger than ${MANIFEST_MAX_BYTES} bytes` };
    try {
      return { ok: true, document: JSON.parse(text) };
    } catch {
      return { ok: false, transient: false, error: "manifest: not JSON" };
    }
  } catch (error) {
    return {
      ok: false,
      transient: true,
      error: controller.signal.aborted
        ? `manifest: no answer within ${PROBE_TIMEOUT_MS} ms`
        : `manifest: fetch failed (${String(error)})`,
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a manifest document names `wallet` (`merchantWallet`, or one of `merchantWallets`; the 256 KiB cap bounds the
 * list).
 */
export function documentNamesWallet(document: unknown, wallet: string): boolean {
  if (typeof document !== "object" || document === null || Array.isArray(document)) return false;
  const { merchantWallet, merchantWallets } = document as Record<string, unknown>;
  if (merchantWallet === wallet) return true;
  return Array.isArray(merchantWallets) && merchantWallets.includes(wallet);
}

function notProven(origin: string, wallet: string, why: string): FacilitatorError {
  return new FacilitatorError(
    "FORBIDDEN",
    `origin ${origin} has not proven that ` +
      `wallet ${wallet} may list resources on it ` +
      `(${why}): ` +
      `serve ${origin}${MANIFEST_PATH} naming the wallet in "merchantWallet" (or "merchantWallets"); see ` +
      `/onboarding_guide.md#prove-your-origin`,
    { reason: "origin_not_proven" },
  );
}

/**
 * Checks a fetched manifest against the wallet and records the outcome: proven, or (on a definite answer) revoked with
 * the wallet's resources on the origin unlisted. Throws 403 `origin_not_proven` unless proven.
 */
export async function settleOriginProof(
  db: D1Database,
  wallet: string,
  origin: string,
  fetched: ManifestFetch,
  nowMs: number,
): Promise<unknown> {
  if (fetched.ok && documentNamesWallet(fetched.document, wallet)) {
    await recordOriginProof(db, wallet, origin, nowMs);
    return fetched.document;
  }
  if (!fetched.ok && fetched.transient) throw notProven(origin, wallet, fetched.error);
  await revokeOriginProof(db, wallet);
  throw notProven(origin, wallet, fetched.ok ? "its manifest does not name the wallet" : fetched.error);
}

/**
 * Before anything on `origin` is stored or probed for this merchant: a proof on record for exactly this origin is
 * enough (re-checked at every harvest); otherwise the manifest is fetched once and checked now.
 */
export async function ensureOriginProof(
  db: D1Database,
  merchant: ProviderRow,
  origin: string,
  allowLoopback: boolean,
  nowMs = Date.now(),
): Promise<void> {
  if (merchant.provenOrigin === origin) return;
  await settleOriginProof(db, merchant.walletPubkey, origin, await fetchManifestDocument(origin, allowLoopback), nowMs);
}
