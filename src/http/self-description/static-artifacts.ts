/** Origin paths of the artifacts served next to the API (docs/facilitator-spec.md §1 rule 4). */
export const STATIC_ARTIFACT_PATHS = {
  openApi: "/openapi.json",
  integrationGuide: "/agent-integration.md",
  sellerQuickStart: "/seller-quick-start.md",
  onboardingGuide: "/onboarding_guide.md",
  payToSemantics: "/agent-payTo-semantics.json",
  agentTools: "/agent-tools.json",
  resourceIndex: "/dist/resource-index.json",
  mcp: "/mcp",
  /** pr402's origin files (public/ in its repository), written for this service. */
  sellerEndpointGuide: "/seller-endpoint-guide.json",
  resourceManifestSchema: "/x402-resources.schema.json",
  buyerQuickstart: "/quickstart-buyer.md",
  sellerQuickstart: "/quickstart-seller.md",
} as const;
