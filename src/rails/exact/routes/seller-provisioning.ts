import { type RouteDef, route } from "../../../http/route-def";
import { RAIL_SWITCH_REASONS } from "../../../platform/config/rail-switches";
import { buildSellerProvisioning, ProvisionRequestSchema } from "../seller-provisioning";
import { ProvisionResponseSchema } from "./responses";

/** `POST /sellers/provision-tx`: the seller's own (sovereign) activation of its vault, in the sellers group. */
export function sellerProvisioningRoutes(): RouteDef[] {
  return [
    route({
      key: "sellerProvisionTx",
      reasons: [...RAIL_SWITCH_REASONS],
      response: ProvisionResponseSchema,
      agentTool: {
        name: "build_seller_provisioning",
        description:
          "Build the seller's UNSIGNED activation transaction (vault and token account) for an asset; the seller " +
          "signs and submits it.",
      },
      method: "POST",
      path: "/sellers/provision-tx",
      tag: "Sellers",
      summary:
        "Unsigned sovereign activation transaction (CreateVault and/or the vault token account), signed and paid by " +
        "the seller",
      body: ProvisionRequestSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildSellerProvisioning(c.var.config, body)),
    }),
  ];
}
