import { MANIFEST_FORMAT_VERSION, PR402_MANIFEST_SCHEMA_VERSION } from "./manifest-format";

/**
 * `/x402-resources.schema.json`: JSON Schema (2020-12) of the Seller Resource Manifest as this facilitator reads it
 * (src/directory/resources/manifest-format.ts), covering both dialects: ours and pr402's. Entries name id and method
 * either way.
 */
const SLUG = { type: "string", pattern: "^[a-z0-9-]{1,32}$" };
const METHOD = { type: "string", enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] };

export function buildResourceManifestSchema(origin: string) {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `${origin}/x402-resources.schema.json`,
    title: "Seller Resource Manifest ({origin}/.well-known/x402-resources.json)",
    description:
      `Read by this facilitator when it carries ` +
      `"x402ResourceManifest": ${MANIFEST_FORMAT_VERSION} or "schemaVersion": ` +
      `"${PR402_MANIFEST_SCHEMA_VERSION}" (pr402's dialect). ` +
      "A manifest with both markers, origin, merchantWallet, and entries with id and method is read the same by " +
      "pr402. " +
      "origin and merchantWallet, when present, must be the verified merchant's.",
    type: "object",
    required: ["resources"],
    anyOf: [{ required: ["x402ResourceManifest"] }, { required: ["schemaVersion"] }],
    properties: {
      x402ResourceManifest: { const: MANIFEST_FORMAT_VERSION },
      schemaVersion: { const: PR402_MANIFEST_SCHEMA_VERSION },
      origin: { type: "string", format: "uri" },
      merchantWallet: { type: "string", minLength: 32, maxLength: 64 },
      facilitatorHint: { type: "string", format: "uri" },
      resources: { type: "array", maxItems: 100, items: { $ref: "#/$defs/resource" } },
    },
    $defs: {
      resource: {
        type: "object",
        required: ["resourceUrl", "title", "scheme"],
        properties: {
          id: {
            type: "string",
            minLength: 1,
            maxLength: 64,
            description: "pr402's name for sellerResourceId (pr402 requires it)",
          },
          sellerResourceId: { type: "string", minLength: 1, maxLength: 64 },
          method: { ...METHOD, description: "pr402's name for httpMethod (pr402 requires it)" },
          httpMethod: METHOD,
          resourceUrl: { type: "string", format: "uri", description: "on the manifest's origin" },
          title: { type: "string", minLength: 1, maxLength: 64 },
          description: { type: "string", maxLength: 280 },
          useCase: { type: "string", maxLength: 255 },
          category: SLUG,
          tags: { type: "array", maxItems: 5, items: SLUG },
          scheme: { type: "string", enum: ["exact", "sla-escrow"] },
          network: { type: "string" },
          intentContractUrl: { type: "string", format: "uri" },
          listingOptIn: { type: "boolean", default: true },
        },
      },
    },
  };
}
