import { BuildRefundRequestSchema, buildRefund } from "../../chain/refund/build-refund";
import { SOURCE_FUNDS_REASONS } from "../../chain/source-funds";
import { type RouteDef, route } from "../route-def";

/** `/build-refund-tx`: a merchant's SPL refund to the original payer, signed and paid by the merchant. */
export function refundBuilderRoutes(): RouteDef[] {
  return [
    route({
      key: "buildRefundTx",
      method: "POST",
      path: "/build-refund-tx",
      tag: "Tx Build",
      summary: "Unsigned SPL refund from the merchant (fee payer, only signer) to the original payer",
      body: BuildRefundRequestSchema,
      limit: "build",
      reasons: [...SOURCE_FUNDS_REASONS],
      handler: async (c, { body }) => c.json(await buildRefund(c.var.config, body)),
    }),
  ];
}
