/** Origin paths of the artifacts served next to the API (spec §1 rule 4). */
export const STATIC_ARTIFACT_PATHS = {
  openApi: "/openapi.json",
  integrationGuide: "/agent-integration.md",
  sellerQuickStart: "/seller-quick-start.md",
  onboardingGuide: "/onboarding_guide.md",
  payToSemantics: "/agent-payTo-semantics.json",
  agentTools: "/agent-tools.json",
  resourceIndex: "/dist/resource-index.json",
  mcp: "/mcp",
} as const;
