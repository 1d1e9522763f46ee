import type { Hono } from "hono";
import type { AppContext, AppEnv } from "../context";
import type { EndpointInfo } from "../route-def";
import { buildCapabilities } from "../../discovery/capabilities";
import { buildOpenApi } from "../../discovery/openapi";
import { buildAgentTools, buildPayToSemantics } from "../../discovery/agent-artifacts";
import { STATIC_ARTIFACT_PATHS } from "../../discovery/static-artifacts";
import { ORIGIN_ROUTES } from "../../discovery/origin-routes";
import { API_PREFIX } from "../context";
import integrationGuide from "../../../static/agent-integration.md";
import sellerQuickStart from "../../../static/seller-quick-start.md";
import onboardingGuide from "../../../static/onboarding_guide.md";

const SERVICE_DESC_LINK = '</openapi.json>; rel="service-desc"';

/** Origin-level artifacts (spec §1 rule 4) and the two roots that answer with capabilities. */
export function mountStaticRoutes(app: Hono<AppEnv>, endpoints: () => readonly EndpointInfo[]): void {
  const capabilities = async (c: AppContext) => {
    const body = await buildCapabilities(c.var.config, endpoints(), new URL(c.req.url).origin);
    return c.json(body, 200, { Link: SERVICE_DESC_LINK });
  };
  app.get("/", capabilities);
  app.get(API_PREFIX, capabilities);
  app.get(API_PREFIX + "/", capabilities);

  app.get(STATIC_ARTIFACT_PATHS.openApi, (c) => c.json(buildOpenApi(endpoints(), new URL(c.req.url).origin, ORIGIN_ROUTES)));
  app.get(STATIC_ARTIFACT_PATHS.payToSemantics, async (c) => c.json(await buildPayToSemantics(c.var.config)));
  app.get(STATIC_ARTIFACT_PATHS.agentTools, (c) => c.json(buildAgentTools(endpoints(), new URL(c.req.url).origin)));

  const markdown = (text: string) => (c: AppContext) =>
    c.body(text, 200, { "Content-Type": "text/markdown; charset=utf-8" });
  // Filled in for the deployment that serves it, so its examples can be pasted as they are.
  const filled = (text: string) => (c: AppContext) =>
    markdown(text.replaceAll("{{origin}}", new URL(c.req.url).origin).replaceAll("{{network}}", c.var.config.network))(c);
  app.get(STATIC_ARTIFACT_PATHS.integrationGuide, filled(integrationGuide));
  app.get(STATIC_ARTIFACT_PATHS.sellerQuickStart, filled(sellerQuickStart));
  app.get(STATIC_ARTIFACT_PATHS.onboardingGuide, filled(onboardingGuide));
}
