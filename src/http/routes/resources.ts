import { harvestManifest } from "../../directory/resources/manifest";
import {
  OwnerResourcesSchema,
  ResourceChallengeQuerySchema,
  ResourceHarvestBodySchema,
  ResourceIdBodySchema,
  ResourceIdPathSchema,
  ResourceRegisterBodySchema,
} from "../../directory/resources/resource-inputs";
import {
  listOwnedResources,
  probeOwnedResource,
  RESOURCE_OWNER_REASONS,
  registerResource,
  retireOwnedResource,
} from "../../directory/resources/resource-registry";
import { getListedResource, ResourcesQuerySchema, searchResources } from "../../directory/resources/resource-search";
import { WalletPathSchema } from "../../directory/sellers/seller-inputs";
import { CHALLENGE_ISSUE_REASONS, issueChallenge } from "../../directory/wallet-challenges/signed-challenge";
import { challengeDomainOf } from "../challenge-domain";
import { type RouteDef, route } from "../route-def";
import { ResourceSearchResponseSchema, ResourceSingleResponseSchema } from "./resources-responses";
import { ChallengeResponseSchema } from "./sellers-responses";

/**
 * `/resources`: the public resource directory (docs/facilitator-spec.md §4.4), its registry, and each wallet's own list
 * (`/sellers/{wallet}/resources`).
 */
export function resourceRoutes(): RouteDef[] {
  return [
    route({
      key: "resources",
      response: ResourceSearchResponseSchema,
      agentTool: {
        name: "search_resources",
        description:
          "Search the public directory of payable x402 resources (full text q, category, scheme, paging cursor).",
      },
      method: "GET",
      path: "/resources",
      tag: "Directory",
      summary: "Search listed resources: ?q (full text, ranked), category, scheme, tag (exact), limit 1..100, cursor",
      query: ResourcesQuerySchema,
      handler: async (c, { query }) => c.json(await searchResources(c.env.DB, query)),
    }),
    route({
      key: "resourceRegisterChallenge",
      reasons: [...CHALLENGE_ISSUE_REASONS],
      method: "GET",
      path: "/resources/register/challenge",
      tag: "Directory",
      summary:
        "A one-time challenge for ?wallet to sign; ?action=resource:register|retire|probe|list, resource:any (every " +
        "resource action, one use) when omitted",
      query: ResourceChallengeQuerySchema,
      response: ChallengeResponseSchema,
      handler: async (c, { query: { wallet, action } }) =>
        c.json(await issueChallenge(c.var.config, { wallet, action, domain: challengeDomainOf(c) })),
    }),
    route({
      key: "resourceById",
      reasons: ["not_found"],
      response: ResourceSingleResponseSchema,
      agentTool: {
        name: "get_resource",
        description: "One publicly listed payable resource by its numeric directory id.",
      },
      method: "GET",
      path: "/resources/:id",
      tag: "Directory",
      summary:
        "One listed resource by numeric id as {entry, notice} (its members also at the top level); 404 unless every " +
        "listing gate holds",
      params: ResourceIdPathSchema,
      handler: async (c, { params }) => c.json(await getListedResource(c.env.DB, params.id)),
    }),
    route({
      key: "resourceRegister",
      reasons: [...RESOURCE_OWNER_REASONS, "resource_limit_reached"],
      method: "POST",
      path: "/resources/register",
      tag: "Directory",
      auth: "wallet-signature",
      summary:
        "Register (or update) a resource on the verified merchant's origin with a resource:register challenge; " +
        "probed at once",
      body: ResourceRegisterBodySchema,
      handler: async (c, { body }) =>
        c.json(await registerResource(c.var.config, c.env.DB, body, challengeDomainOf(c))),
    }),
    route({
      key: "resourceRetire",
      reasons: ["not_found"],
      method: "POST",
      path: "/resources/retire",
      tag: "Directory",
      auth: "wallet-signature",
      summary:
        "Retire one of the wallet's resources, named by id or resourceUrl (resource:retire challenge); it leaves " +
        "every listing",
      body: ResourceIdBodySchema,
      handler: async (c, { body }) =>
        c.json(await retireOwnedResource(c.var.config, c.env.DB, body, challengeDomainOf(c))),
    }),
    route({
      key: "resourceProbe",
      reasons: ["not_found", ...RESOURCE_OWNER_REASONS],
      method: "POST",
      path: "/resources/probe",
      tag: "Directory",
      auth: "wallet-signature",
      summary:
        "Run the 402 probe on one of the wallet's resources now, named by id or resourceUrl (resource:probe challenge)",
      body: ResourceIdBodySchema,
      handler: async (c, { body }) =>
        c.json(await probeOwnedResource(c.var.config, c.env.DB, body, challengeDomainOf(c))),
    }),
    route({
      key: "resourceHarvest",
      reasons: [...RESOURCE_OWNER_REASONS, "resource_limit_reached"],
      method: "POST",
      path: "/resources/harvest",
      tag: "Directory",
      auth: "wallet-signature",
      summary:
        "Import the merchant's Seller Resource Manifest ({origin}/.well-known/x402-resources.json) with a " +
        "resource:register challenge",
      body: ResourceHarvestBodySchema,
      handler: async (c, { body }) => c.json(await harvestManifest(c.var.config, c.env.DB, body, challengeDomainOf(c))),
    }),
    route({
      key: "sellerResources",
      method: "GET",
      path: "/sellers/:wallet/resources",
      tag: "Directory",
      auth: "wallet-signature",
      summary: "The wallet's own resources with probe diagnostics; ?message&signature of a resource:list challenge",
      params: WalletPathSchema,
      query: OwnerResourcesSchema,
      handler: async (c, { params, query }) =>
        c.json(await listOwnedResources(c.var.config, c.env.DB, params.wallet, query, challengeDomainOf(c))),
    }),
    route({
      key: "sellerResourcesSigned",
      method: "POST",
      path: "/sellers/:wallet/resources",
      tag: "Directory",
      auth: "wallet-signature",
      summary:
        "The wallet's own resources with probe diagnostics; body {message, signature, limit?, cursor?} of a " +
        "resource:list challenge",
      params: WalletPathSchema,
      body: OwnerResourcesSchema,
      handler: async (c, { params, body }) =>
        c.json(await listOwnedResources(c.var.config, c.env.DB, params.wallet, body, challengeDomainOf(c))),
    }),
  ];
}
