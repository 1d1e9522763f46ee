import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { FREE_PLAN_MANIFEST_ENTRIES } from "../../platform/config/workers-plan";
import { badRequest, FacilitatorError } from "../../platform/errors/catalogue";
import { log } from "../../platform/observability/log";
import { describeIssues } from "../../platform/validation/issue-message";
import { consumeChallenge, verifySignedChallenge } from "../wallet-challenges/signed-challenge";
import { ManifestSchema, manifestOriginMismatch, normalizeManifestEntry } from "./manifest-format";
import { fetchManifestDocument, MANIFEST_MAX_BYTES, MANIFEST_PATH, settleOriginProof } from "./origin-proof";
import { ResourceFieldsSchema } from "./resource-inputs";
import {
  assertOnMerchantOrigin,
  type HarvestBody,
  requireVerifiedMerchant,
  saveAndProbe,
  storeResource,
} from "./resource-registry";

export { MANIFEST_MAX_BYTES, MANIFEST_PATH };

/**
 * Seller Resource Manifest (SRM), served by the seller at `{origin}/.well-known/x402-resources.json`:
 * { "x402ResourceManifest": 1, "merchantWallet": "<wallet>", "resources": [ <resource fields as in POST
 * /resources/register> ] } At most 100 resources, 256 KiB. It must name the harvesting wallet (the origin proof,
 * src/directory/resources/origin-proof.ts). Every resource must be on the same origin; each is still subject to the
 * per-wallet cap, the probe and the listing gates. Documented in
 * docs/guides/agent-integration.md#seller-resource-manifest.
 */
export const MANIFEST_MAX_RESOURCES = 100;
/**
 * Entries one harvest imports at most (each is one D1 write; FREE_PLAN_MANIFEST_ENTRIES on Workers Free); the rest are
 * reported as rejected.
 */
export const MANIFEST_ENTRIES_PER_HARVEST = 100;
/** Resources probed during an on-demand harvest; the rest are never-probed rows the probe cron takes first. */
export const HARVEST_PROBES_INLINE = 10;

/** Both dialects (ours and pr402's) are read as one: see manifest-format.ts. */
export { ManifestSchema };

export interface HarvestOutcome {
  manifestUrl: string;
  imported: { id: number; resourceUrl: string; probed: boolean; ok: boolean | null }[];
  rejected: { index: number; error: string }[];
}

/** The manifest's resource entries (its format checked); a malformed manifest, or one for another origin, is a 400. */
export function manifestEntries(document: unknown, origin: string): unknown[] {
  const parsed = v.safeParse(ManifestSchema, document);
  if (!parsed.success) throw badRequest(describeIssues(parsed.issues, "manifest"));
  const mismatch = manifestOriginMismatch(parsed.output, origin);
  if (mismatch !== null) throw badRequest(mismatch);
  return parsed.output.resources;
}

/**
 * Imports a verified merchant's manifest; bad entries are reported, not fatal. The manifest must name the wallet
 * (origin proof, re-checked on every harvest: a definite answer without it revokes the proof and unlists).
 */
export async function importManifest(
  config: Config,
  db: D1Database,
  wallet: string,
  serviceUrl: string,
  probesInline: number,
): Promise<HarvestOutcome> {
  const origin = new URL(serviceUrl).origin;
  const fetched = await fetchManifestDocument(origin, config.probe.allowLoopback);
  if (!fetched.ok && fetched.transient) throw badRequest(fetched.error);
  const document = await settleOriginProof(db, wallet, origin, fetched, Date.now());
  const entries = manifestEntries(document, origin);
  const entryLimit = config.workersPlan === "free" ? FREE_PLAN_MANIFEST_ENTRIES : MANIFEST_ENTRIES_PER_HARVEST;
  const outcome: HarvestOutcome = { manifestUrl: new URL(MANIFEST_PATH, origin).href, imported: [], rejected: [] };
  for (const [index, entry] of entries.entries()) {
    if (index >= entryLimit) {
      outcome.rejected.push({
        index,
        error: `resources[${index}]: beyond the ${entryLimit} entries one harvest imports`,
      });
      continue;
    }
    const normalized = normalizeManifestEntry(entry);
    if (!normalized.ok) {
      outcome.rejected.push({ index, error: `resources[${index}]: ${normalized.error}` });
      continue;
    }
    const parsed = v.safeParse(ResourceFieldsSchema, normalized.entry, { abortPipeEarly: true });
    if (!parsed.success) {
      outcome.rejected.push({ index, error: describeIssues(parsed.issues, `resources[${index}]`) });
      continue;
    }
    try {
      assertOnMerchantOrigin(parsed.output.resourceUrl, serviceUrl);
      if (outcome.imported.length < probesInline) {
        const { row, probe } = await saveAndProbe(config, db, wallet, parsed.output, origin);
        outcome.imported.push({ id: row.id, resourceUrl: row.resourceUrl, probed: true, ok: probe.ok });
      } else {
        const row = await storeResource(config, db, wallet, parsed.output, origin);
        outcome.imported.push({ id: row.id, resourceUrl: row.resourceUrl, probed: false, ok: null });
      }
    } catch (error) {
      if (!(error instanceof FacilitatorError)) throw error;
      outcome.rejected.push({ index, error: error.message });
    }
  }
  log("info", "resource_manifest_harvested", {
    wallet,
    imported: outcome.imported.length,
    rejected: outcome.rejected.length,
  });
  return outcome;
}

/** `POST /resources/harvest`: on-demand import, authorized by a resource:register challenge. */
export async function harvestManifest(
  config: Config,
  db: D1Database,
  body: HarvestBody,
  domain: string,
): Promise<HarvestOutcome> {
  const challenge = await verifySignedChallenge(config, {
    wallet: body.wallet,
    action: "resource:register",
    message: body.message,
    signature: body.signature,
    domain,
  });
  const merchant = await requireVerifiedMerchant(db, body.wallet);
  await consumeChallenge(db, challenge);
  return importManifest(config, db, body.wallet, merchant.serviceUrl, HARVEST_PROBES_INLINE);
}
