import type { Hono } from "hono";
// The guides' single source is docs/guides/; each is served at the paths it has always had.
import integrationGuide from "../../../docs/guides/agent-integration.md";
import buyerGuide from "../../../docs/guides/buyer.md";
import onboardingGuide from "../../../docs/guides/onboarding.md";
import sellerGuide from "../../../docs/guides/seller.md";
import { buildResourceManifestSchema } from "../../directory/resources/resource-manifest-schema";
import { CONSOLE_HTML, consoleCsp } from "../../page/console-html";
import { HOME_HTML } from "../../page/home-html";
import { TRANSACTION_HTML } from "../../page/tx-html";
import type { RailModule } from "../../rails/rail";
import { artifactResponse } from "../artifact-response";
import type { AppContext, AppEnv } from "../context";
import { API_PREFIX } from "../context";
import type { EndpointInfo } from "../route-def";
import { buildAgentTools, buildPayToSemantics } from "../self-description/agent-artifacts";
import { buildCapabilities } from "../self-description/capabilities";
import { fillGuide } from "../self-description/guide-placeholders";
import { buildOpenApi } from "../self-description/openapi";
import { ORIGIN_ROUTES } from "../self-description/origin-routes";
import { buildSellerEndpointGuide } from "../self-description/seller-endpoint-guide";
import { STATIC_ARTIFACT_PATHS } from "../self-description/static-artifacts";
import { STATIC_FILE_CACHE, STATIC_FILE_PATHS, staticFile } from "../static-files";

const SERVICE_DESC_LINK = '</openapi.json>; rel="service-desc"';
/** The page loads nothing from elsewhere: scripts, styles and API calls are all same-origin. */
const PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const PAGE_CACHE = STATIC_FILE_CACHE;
/** Artifacts change with deployments and configuration: short freshness, then an ETag revalidation. */
const ARTIFACT_CACHE = "public, max-age=300, must-revalidate";

function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf("text/html");
  const json = accept.indexOf("application/json");
  return html !== -1 && (json === -1 || html < json);
}

/**
 * Origin-level artifacts (docs/facilitator-spec.md §1 rule 4) and the two roots that answer with capabilities; `rails`:
 * the app's.
 */
export function mountStaticRoutes(
  app: Hono<AppEnv>,
  endpoints: () => readonly EndpointInfo[],
  rails: readonly RailModule[],
): void {
  const capabilities = async (c: AppContext) => {
    const body = await buildCapabilities(c.var.config, endpoints(), new URL(c.req.url).origin, rails);
    return c.json(body, 200, { Link: SERVICE_DESC_LINK });
  };
  // Browsers get the page for people; API clients (Accept: application/json, */*) keep getting capabilities.
  app.get("/", (c) =>
    prefersHtml(c.req.header("Accept"))
      ? artifactResponse(c, HOME_HTML, "text/html; charset=utf-8", PAGE_CACHE, { "Content-Security-Policy": PAGE_CSP })
      : capabilities(c),
  );
  for (const path of STATIC_FILE_PATHS) app.get(path, staticFile);
  app.get("/console", (c) =>
    artifactResponse(c, CONSOLE_HTML, "text/html; charset=utf-8", PAGE_CACHE, {
      "Content-Security-Policy": consoleCsp(c.var.config.walletRpcUrl),
    }),
  );
  // The console's view of a transaction on a chain no public explorer sees (the local chain); it reads the wallet RPC.
  app.get("/console/tx", (c) =>
    artifactResponse(c, TRANSACTION_HTML, "text/html; charset=utf-8", PAGE_CACHE, {
      "Content-Security-Policy": consoleCsp(c.var.config.walletRpcUrl),
    }),
  );
  app.get(API_PREFIX, capabilities);
  app.get(API_PREFIX + "/", capabilities);

  // Generated per request from the route table and live configuration; cheap to revalidate by ETag.
  const json = (c: AppContext, body: unknown) =>
    artifactResponse(c, JSON.stringify(body), "application/json; charset=utf-8", ARTIFACT_CACHE);
  app.get(STATIC_ARTIFACT_PATHS.openApi, (c) =>
    json(c, buildOpenApi(endpoints(), new URL(c.req.url).origin, ORIGIN_ROUTES)),
  );
  app.get(STATIC_ARTIFACT_PATHS.payToSemantics, async (c) => json(c, await buildPayToSemantics(c.var.config, rails)));
  app.get(STATIC_ARTIFACT_PATHS.agentTools, (c) => json(c, buildAgentTools(endpoints(), new URL(c.req.url).origin)));
  app.get(STATIC_ARTIFACT_PATHS.sellerEndpointGuide, (c) => json(c, buildSellerEndpointGuide(endpoints())));
  app.get(STATIC_ARTIFACT_PATHS.resourceManifestSchema, (c) =>
    json(c, buildResourceManifestSchema(new URL(c.req.url).origin)),
  );

  const markdown = (text: string) => (c: AppContext) =>
    artifactResponse(c, text, "text/markdown; charset=utf-8", ARTIFACT_CACHE);
  // Filled in for the deployment that serves it, so its examples can be pasted as they are.
  const filled = (text: string) => async (c: AppContext) =>
    markdown(await fillGuide(c.var.config, new URL(c.req.url).origin, text, rails))(c);
  app.get(STATIC_ARTIFACT_PATHS.integrationGuide, filled(integrationGuide));
  app.get(STATIC_ARTIFACT_PATHS.sellerQuickStart, filled(sellerGuide));
  app.get(STATIC_ARTIFACT_PATHS.onboardingGuide, filled(onboardingGuide));
  app.get(STATIC_ARTIFACT_PATHS.buyerQuickstart, filled(buyerGuide));
  // The short seller form was folded into the seller guide; its URL stays.
  app.get(STATIC_ARTIFACT_PATHS.sellerQuickstart, filled(sellerGuide));
}
