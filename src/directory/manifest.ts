import * as v from "valibot";
import type { Config } from "../config/load-config";
import { badRequest, FacilitatorError } from "../errors/catalogue";
import { log } from "../observability/log";
import { consumeChallenge, verifySignedChallenge } from "../sellers/signed-challenge";
import { describeIssues } from "../http/parse-input";
import { judgeProbeHost } from "./ssrf-guard";
import { PROBE_TIMEOUT_MS, readCapped } from "./probe";
import { ResourceFieldsSchema } from "./resource-inputs";
import { assertOnMerchantOrigin, requireVerifiedMerchant, saveAndProbe, toResourceFields, type HarvestBody } from "./resource-registry";
import { upsertResource } from "../store/resources";
import { manifestOwnerMismatch, ManifestSchema, normalizeManifestEntry, type Manifest } from "./manifest-format";

/**
 * Seller Resource Manifest (SRM), served by the seller at `{origin}/.well-known/x402-resources.json`:
 *   { "x402ResourceManifest": 1, "resources": [ <resource fields as in POST /resources/register> ] }
 * At most 100 resources, 256 KiB. Every resource must be on the same origin; each is still subject to the
 * probe and the listing gates. Documented in static/agent-integration.md#seller-resource-manifest.
 */
export const MANIFEST_PATH = "/.well-known/x402-resources.json";
export const MANIFEST_MAX_BYTES = 256 * 1024;
export const MANIFEST_MAX_RESOURCES = 100;
/** Resources probed during an on-demand harvest; the rest are never-probed rows the probe cron takes first. */
export const HARVEST_PROBES_INLINE = 10;

/** Both dialects (ours and pr402's) are read as one: see manifest-format.ts. */
export { ManifestSchema };

export interface HarvestOutcome {
  manifestUrl: string;
  imported: { id: number; resourceUrl: string; probed: boolean; ok: boolean | null }[];
  rejected: { index: number; error: string }[];
}

/** Fetches the manifest under the same SSRF guard, timeout, no-redirect and size rules as the probe. */
export async function fetchManifest(origin: string, allowLoopback: boolean): Promise<Manifest> {
  const url = new URL(MANIFEST_PATH, origin);
  const verdict = judgeProbeHost(url, { allowLoopback });
  if (!verdict.allowed) throw badRequest(`manifest: refused, ${verdict.reason}`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
  try {
    const response = await fetch(url.href, { redirect: "manual", signal: controller.signal, headers: { Accept: "application/json" } });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw badRequest(`manifest: ${url.href} answered HTTP ${response.status} (redirects are not followed)`);
    }
    const text = await readCapped(response, MANIFEST_MAX_BYTES, controller.signal);
    if (text === null) throw badRequest(`manifest: larger than ${MANIFEST_MAX_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw badRequest("manifest: not JSON");
    }
    const parsed = v.safeParse(ManifestSchema, json);
    if (!parsed.success) throw badRequest(describeIssues(parsed.issues, "manifest"));
    return parsed.output;
  } catch (error) {
    if (error instanceof FacilitatorError) throw error;
    throw badRequest(controller.signal.aborted ? `manifest: no answer within ${PROBE_TIMEOUT_MS} ms` : `manifest: fetch failed (${String(error)})`);
  } finally {
    clearTimeout(timer);
  }
}

/** Imports a verified merchant's manifest; bad entries are reported, not fatal. */
export async function importManifest(config: Config, db: D1Database, wallet: string, serviceUrl: string, probesInline: number): Promise<HarvestOutcome> {
  const origin = new URL(serviceUrl).origin;
  const manifest = await fetchManifest(origin, config.probe.allowLoopback);
  const mismatch = manifestOwnerMismatch(manifest, { wallet, origin });
  if (mismatch !== null) throw badRequest(mismatch);
  const outcome: HarvestOutcome = { manifestUrl: new URL(MANIFEST_PATH, origin).href, imported: [], rejected: [] };
  for (const [index, raw] of manifest.resources.entries()) {
    const normalized = normalizeManifestEntry(raw);
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
    } catch (error) {
      outcome.rejected.push({ index, error: (error as Error).message });
      continue;
    }
    if (outcome.imported.length < probesInline) {
      const { row, probe } = await saveAndProbe(config, db, wallet, parsed.output, origin);
      outcome.imported.push({ id: row.id, resourceUrl: row.resourceUrl, probed: true, ok: probe.ok });
    } else {
      const row = await upsertResource(db, wallet, toResourceFields(parsed.output, origin), Date.now());
      outcome.imported.push({ id: row.id, resourceUrl: row.resourceUrl, probed: false, ok: null });
    }
  }
  log("info", "resource_manifest_harvested", { wallet, imported: outcome.imported.length, rejected: outcome.rejected.length });
  return outcome;
}

/** `POST /resources/harvest`: on-demand import, authorized by a resource:register challenge. */
export async function harvestManifest(config: Config, db: D1Database, body: HarvestBody, domain: string): Promise<HarvestOutcome> {
  const challenge = await verifySignedChallenge(config, { wallet: body.wallet, action: "resource:register", message: body.message, signature: body.signature, domain });
  const merchant = await requireVerifiedMerchant(db, body.wallet);
  await consumeChallenge(db, challenge);
  return importManifest(config, db, body.wallet, merchant.serviceUrl, HARVEST_PROBES_INLINE);
}
