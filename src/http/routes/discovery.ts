import type { RailModule } from "../../rails/rail";
import { type EndpointInfo, type RouteDef, route } from "../route-def";
import { buildCapabilities } from "../self-description/capabilities";
import { buildHealthReport } from "../self-description/health";
import { buildSupported } from "../self-description/supported";
import { CapabilitiesResponseSchema, SupportedResponseSchema } from "./discovery-responses";

/**
 * `/health`, `/supported`, `/capabilities` of the app's `rails`; `endpoints` is read at request time so capabilities
 * lists every mounted route.
 */
export function discoveryRoutes(endpoints: () => readonly EndpointInfo[], rails: readonly RailModule[]): RouteDef[] {
  return [
    route({
      key: "health",
      method: "GET",
      path: "/health",
      tag: "Discovery",
      summary: "Liveness with a live Solana slot and database status",
      handler: async (c) => c.json(await buildHealthReport(c.var.config, c.env.DB, rails)),
    }),
    route({
      key: "supported",
      response: SupportedResponseSchema,
      agentTool: {
        name: "get_supported",
        description:
          "List the payment kinds (scheme, network, extra) this facilitator verifies and settles, and its fee payer.",
      },
      method: "GET",
      path: "/supported",
      tag: "Discovery",
      summary: "Payment kinds (scheme, network, extra) this facilitator verifies and settles",
      handler: async (c) => c.json(await buildSupported(c.var.config, rails)),
    }),
    route({
      key: "capabilities",
      response: CapabilitiesResponseSchema,
      agentTool: {
        name: "get_capabilities",
        description:
          "Everything needed to integrate: supported kinds, feature flags, every HTTP endpoint, links to the agent " +
          "artifacts.",
      },
      method: "GET",
      path: "/capabilities",
      tag: "Discovery",
      summary: "Everything needed to integrate: supported kinds, feature flags, endpoints, agent manifest",
      handler: async (c) =>
        c.json(await buildCapabilities(c.var.config, endpoints(), new URL(c.req.url).origin, rails)),
    }),
  ];
}
