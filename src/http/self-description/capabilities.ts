import type { Config } from "../../platform/config/load-config";
import type { RailModule } from "../../rails/rail";
import { type EndpointInfo, publicPath } from "../route-def";
import { SCHEMA_VERSION } from "./schema-version";
import { buildSellerEndpointGuide } from "./seller-endpoint-guide";
import { STATIC_ARTIFACT_PATHS } from "./static-artifacts";
import { buildSupported } from "./supported";

export const SERVICE_NAME = "x402 Solana facilitator";
/** The protocol this service implements. */
export const X402_SPEC_URL = "https://github.com/coinbase/x402/blob/main/specs/x402-specification-v2.md";

/**
 * `/capabilities`: everything a client needs to integrate, derived from what is actually mounted, so a feature
 * flag or endpoint appears only when it works (docs/wire-notes.md "Discovery shapes"). `modules`: the app's rails.
 */
export async function buildCapabilities(
  config: Config,
  endpoints: readonly EndpointInfo[],
  origin: string,
  modules: readonly RailModule[],
) {
  const keys = new Set(endpoints.map((e) => e.key));
  const supported = await buildSupported(config, modules);
  const rails = new Set(supported.kinds.map((kind) => kind.scheme));
  const endpointUrl = (key: string) => {
    const endpoint = endpoints.find((e) => e.key === key);
    return endpoint ? origin + publicPath(endpoint.path) : undefined;
  };
  const artifact = (path: string) => origin + path;

  return {
    schemaVersion: SCHEMA_VERSION,
    x402Version: 2,
    name: SERVICE_NAME,
    experimental: true,
    environment: config.environment,
    chainId: config.network,
    network: config.network,
    feePayer: config.feePayer.address,
    supported,
    features: {
      // Each rail's own flags, in registry order.
      ...Object.assign(
        {},
        ...modules.map((rail) => rail.describe?.features?.(rails.has(rail.scheme), keys, config) ?? {}),
      ),
      publicResourceDirectory: keys.has("resources") && keys.has("resourceById"),
      paymentRequiredEnrich: keys.has("paymentRequiredEnrich"),
      sellerOnboarding: keys.has("sellerPreview") && keys.has("sellerProvisionTx"),
      // pr402's flags (CapabilitiesFeatures in its src/bin/facilitator.rs), all booleans.
      sellerLifecycleBlock: keys.has("sellerPreview"),
      acceptsBase64OnboardSignature: keys.has("sellerRegister"),
      buildResponseSignerPubkeys: true,
      publicProviderDirectory: keys.has("providers") && keys.has("providerByWallet"),
    },
    httpEndpoints: Object.fromEntries(
      [...endpoints, ...pr402EndpointAliases(endpoints)].map((e) => [
        e.key,
        { method: e.method, path: publicPath(e.path), ...(e.auth ? { auth: e.auth } : {}) },
      ]),
    ),
    agentManifest: compact({
      openApi: artifact(STATIC_ARTIFACT_PATHS.openApi),
      payToSemantics: artifact(STATIC_ARTIFACT_PATHS.payToSemantics),
      agentTools: artifact(STATIC_ARTIFACT_PATHS.agentTools),
      integrationGuide: artifact(STATIC_ARTIFACT_PATHS.integrationGuide),
      sellerQuickStart: artifact(STATIC_ARTIFACT_PATHS.sellerQuickStart),
      sellerOnboardingGuide: artifact(STATIC_ARTIFACT_PATHS.onboardingGuide),
      resourceSearch: endpointUrl("resources"),
      // A guide, not the POST endpoint itself (httpEndpoints.resourceRegister): every pointer here answers a GET.
      resourceRegister: keys.has("resourceRegister")
        ? artifact(STATIC_ARTIFACT_PATHS.onboardingGuide) + "#register-a-resource"
        : undefined,
      resourceIndex: keys.has("resources") ? artifact(STATIC_ARTIFACT_PATHS.resourceIndex) : undefined,
      merchantOrigins: endpointUrl("providers"),
      srmSpec: keys.has("resourceRegister") ? artifact(STATIC_ARTIFACT_PATHS.resourceManifestSchema) : undefined,
      buyerQuickStart: artifact(STATIC_ARTIFACT_PATHS.buyerQuickstart),
      sellerEndpointGuide: artifact(STATIC_ARTIFACT_PATHS.sellerEndpointGuide),
    }),
    // Not in agentManifest: every pointer there answers a GET, MCP answers POSTed JSON-RPC.
    mcp: {
      url: artifact(STATIC_ARTIFACT_PATHS.mcp),
      transport: "streamable-http",
      stateless: true,
      toolCatalog: artifact(STATIC_ARTIFACT_PATHS.agentTools),
    },
    // pr402's shape: the array of /seller-endpoint-guide.json.
    sellerEndpointGuide: buildSellerEndpointGuide(endpoints),
    specUrl: X402_SPEC_URL,
    // Members a rail adds while it is served.
    ...Object.assign(
      {},
      ...modules.map((rail) => (rails.has(rail.scheme) ? (rail.describe?.capabilities?.(config, artifact) ?? {}) : {})),
    ),
  };
}

/** Drops undefined members so that absent features leave no dangling pointers. */
function compact<T extends Record<string, string | undefined>>(record: T): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** pr402's httpEndpoints keys where our route key differs (same route, both names listed). */
const PR402_ENDPOINT_KEYS: Readonly<Record<string, string>> = {
  sellerRails: "sellerRailInfo",
  providerByWallet: "provider",
};

function pr402EndpointAliases(endpoints: readonly EndpointInfo[]): EndpointInfo[] {
  return endpoints.flatMap((e) => (PR402_ENDPOINT_KEYS[e.key] ? [{ ...e, key: PR402_ENDPOINT_KEYS[e.key]! }] : []));
}
