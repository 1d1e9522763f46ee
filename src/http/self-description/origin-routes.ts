import { API_PREFIX } from "../context";
import { STATIC_ARTIFACT_PATHS } from "./static-artifacts";

/** A route served outside the API route table (origin artifacts, the capability roots, /mcp), for /openapi.json. */
export interface OriginRoute {
  method: "GET" | "POST" | "DELETE";
  path: string;
  operationId: string;
  summary: string;
  contentType: string;
}

const JSON_TYPE = "application/json";
const MARKDOWN_TYPE = "text/markdown";

/** Every origin-level route the app mounts; the OpenAPI test checks this list against Hono's routes both ways. */
export const ORIGIN_ROUTES: readonly OriginRoute[] = [
  {
    method: "GET",
    path: "/",
    operationId: "root",
    summary: "Capabilities (same body as /capabilities); browsers (Accept: text/html) get the page for people",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: "/assets/home.js",
    operationId: "homePageScript",
    summary: "Script of the page at / (live status, schemes, directory search)",
    contentType: "text/javascript",
  },
  {
    method: "GET",
    path: "/assets/home.css",
    operationId: "homePageStyles",
    summary: "Styles of the page at /",
    contentType: "text/css",
  },
  {
    method: "GET",
    path: "/console",
    operationId: "sellerConsole",
    summary: "The seller console for browser wallets (text/html): preview, activate, register, resources, money",
    contentType: "text/html",
  },
  {
    method: "GET",
    path: "/assets/console.js",
    operationId: "sellerConsoleScript",
    summary: "Script of the seller console",
    contentType: "text/javascript",
  },
  {
    method: "GET",
    path: "/assets/console.css",
    operationId: "sellerConsoleStyles",
    summary: "Styles of the seller console",
    contentType: "text/css",
  },
  {
    method: "GET",
    path: "/console/tx",
    operationId: "transactionView",
    summary:
      "A read-only view of one transaction (?signature=), read from the wallet RPC in the browser: the console's " +
      "link on the local chain",
    contentType: "text/html",
  },
  {
    method: "GET",
    path: "/assets/tx.js",
    operationId: "transactionViewScript",
    summary: "Script of the transaction view",
    contentType: "text/javascript",
  },
  {
    method: "GET",
    path: API_PREFIX,
    operationId: "apiRoot",
    summary: "Capabilities (same body as /capabilities)",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: API_PREFIX + "/",
    operationId: "apiRootSlash",
    summary: "Capabilities (same body as /capabilities)",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.openApi,
    operationId: "openApi",
    summary: "This OpenAPI 3.1 description",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.payToSemantics,
    operationId: "agentPayToSemantics",
    summary: "payTo resolution per scheme and the live mint allowlist",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.agentTools,
    operationId: "agentTools",
    summary: "Catalog of tools an LLM agent can call, each mapped to its HTTP call",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.integrationGuide,
    operationId: "agentIntegrationGuide",
    summary: "Buyer/agent integration guide",
    contentType: MARKDOWN_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.sellerQuickStart,
    operationId: "sellerQuickStart",
    summary: "Seller quick start",
    contentType: MARKDOWN_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.onboardingGuide,
    operationId: "onboardingGuide",
    summary: "Seller onboarding guide and the Seller Resource Manifest format",
    contentType: MARKDOWN_TYPE,
  },
  {
    method: "POST",
    path: STATIC_ARTIFACT_PATHS.mcp,
    operationId: "mcp",
    summary: "MCP (Streamable HTTP, stateless, JSON responses): the agent tools of /agent-tools.json",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.mcp,
    operationId: "mcpStream",
    summary: "405: the stateless MCP endpoint opens no server stream",
    contentType: JSON_TYPE,
  },
  {
    method: "DELETE",
    path: STATIC_ARTIFACT_PATHS.mcp,
    operationId: "mcpSessionEnd",
    summary: "405: the stateless MCP endpoint has no session to end",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.sellerEndpointGuide,
    operationId: "sellerEndpointGuide",
    summary: "The seller's calls in order, each with its side effect (pr402's seller endpoint guide)",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.resourceManifestSchema,
    operationId: "resourceManifestSchema",
    summary: "JSON Schema of the Seller Resource Manifest (ours and pr402's dialect)",
    contentType: JSON_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.buyerQuickstart,
    operationId: "buyerQuickstart",
    summary: "Buyer quick start",
    contentType: MARKDOWN_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.sellerQuickstart,
    operationId: "sellerQuickstartShort",
    summary: "Seller quick start, short form",
    contentType: MARKDOWN_TYPE,
  },
  {
    method: "GET",
    path: STATIC_ARTIFACT_PATHS.resourceIndex,
    operationId: "resourceIndex",
    summary: "Static index of publicly listed payable resources",
    contentType: JSON_TYPE,
  },
];
