import * as v from "valibot";

/**
 * The two Seller Resource Manifest dialects, read as one (docs/pr402-compatibility.md "Seller Resource Manifests"):
 * - ours: `{ "x402ResourceManifest": 1, "resources": [ {resourceUrl, httpMethod?, sellerResourceId?, ...} ] }`;
 * - pr402's (public/x402-resources.schema.json): `{ "schemaVersion": "0.1.0", "origin", "merchantWallet",
 *   "resources": [ {id, title, method, resourceUrl, scheme, ...} ] }`.
 * A manifest carrying both version markers and both spellings of each entry is read the same by both services.
 * The manifest must name the harvesting wallet (`merchantWallet`, or `merchantWallets`: the origin proof,
 * origin-proof.ts); pr402's `origin`, when present, must be the merchant's origin, or the manifest is refused as a
 * whole.
 */
export const PR402_MANIFEST_SCHEMA_VERSION = "0.1.0";
export const MANIFEST_FORMAT_VERSION = 1;
const MANIFEST_MAX_ENTRIES = 100;

export const ManifestSchema = v.pipe(
  v.object({
    x402ResourceManifest: v.optional(
      v.literal(MANIFEST_FORMAT_VERSION, `must be ${MANIFEST_FORMAT_VERSION} (the manifest format version)`),
    ),
    schemaVersion: v.optional(
      v.literal(
        PR402_MANIFEST_SCHEMA_VERSION,
        `must be "${PR402_MANIFEST_SCHEMA_VERSION}" (pr402's manifest schema version)`,
      ),
    ),
    origin: v.optional(
      v.pipe(v.string("must be the merchant origin (a URL)"), v.maxLength(2048, "must be at most 2048 characters")),
    ),
    merchantWallet: v.optional(
      v.pipe(v.string("must be the merchant wallet"), v.maxLength(64, "must be at most 64 characters")),
    ),
    merchantWallets: v.optional(
      v.pipe(
        v.array(v.string("must be wallets"), "must be an array of wallets"),
        v.maxLength(MANIFEST_MAX_ENTRIES, `must have at most ${MANIFEST_MAX_ENTRIES} wallets`),
      ),
    ),
    facilitatorHint: v.optional(
      v.pipe(v.string("must be a URL"), v.maxLength(2048, "must be at most 2048 characters")),
    ),
    resources: v.pipe(
      v.array(v.unknown(), "must be an array"),
      v.maxLength(MANIFEST_MAX_ENTRIES, `must have at most ${MANIFEST_MAX_ENTRIES} entries`),
    ),
  }),
  v.check(
    (manifest) => manifest.x402ResourceManifest !== undefined || manifest.schemaVersion !== undefined,
    `needs "x402ResourceManifest": ${MANIFEST_FORMAT_VERSION} or "schemaVersion": "${PR402_MANIFEST_SCHEMA_VERSION}"`,
  ),
);
export type Manifest = v.InferOutput<typeof ManifestSchema>;

/**
 * Refuses a manifest whose pr402 `origin` names another origin; null when it is this merchant's. Which wallets the
 * manifest names (`merchantWallet`, `merchantWallets`) is the origin proof's to judge (origin-proof.ts).
 */
export function manifestOriginMismatch(manifest: Manifest, merchantOrigin: string): string | null {
  if (manifest.origin === undefined) return null;
  let origin: string;
  try {
    origin = new URL(manifest.origin).origin;
  } catch {
    return "manifest: origin is not a URL";
  }
  return origin === merchantOrigin
    ? null
    : `manifest: origin ${manifest.origin} is not the merchant's origin ${merchantOrigin}`;
}

/**
 * One entry in our field names: pr402's `id` is our `sellerResourceId`, its `method` our `httpMethod`. An entry that
 * gives both spellings with different values is refused (which one the seller meant is unknowable).
 */
export function normalizeManifestEntry(entry: unknown): { ok: true; entry: unknown } | { ok: false; error: string } {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return { ok: true, entry };
  const { id, method, ...rest } = entry as Record<string, unknown>;
  const out: Record<string, unknown> = { ...rest };
  for (const [theirs, ours, value] of [
    ["id", "sellerResourceId", id],
    ["method", "httpMethod", method],
  ] as const) {
    if (value === undefined) continue;
    if (out[ours] !== undefined && out[ours] !== value)
      return { ok: false, error: `${theirs} and ${ours} differ; give one value` };
    out[ours] = typeof value === "string" && ours === "httpMethod" ? value.toUpperCase() : value;
  }
  return { ok: true, entry: out };
}
