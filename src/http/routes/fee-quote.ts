import { feeQuoteQuerySchemaOf, feeQuoteReasonsOf, quoteFeeAmong } from "../../rails/fee-quote";
import type { RailModule } from "../../rails/rail";
import { type RouteDef, route } from "../route-def";

/**
 * GET /fee-quote over the app's quoting `rails`: protocol fee, oracle fee and what the seller nets, for buyers, sellers
 * and agents alike.
 */
export function feeQuoteRoutes(rails: readonly RailModule[]): RouteDef[] {
  return [
    route({
      key: "feeQuote",
      method: "GET",
      path: "/fee-quote",
      tag: "Discovery",
      summary:
        "Fee quote for one payment: protocol fee, oracle fee (sla-escrow) and what the seller nets, from on-chain " +
        "settings and the seller's tier (upto: of the claimed amount)",
      query: feeQuoteQuerySchemaOf(rails),
      reasons: feeQuoteReasonsOf(rails),
      agentTool: {
        name: "fee_quote",
        description:
          "Quote the fees of a payment of `amount` raw units of `asset` to seller `wallet` on the exact, sla-escrow " +
          "or upto rail (upto: `amount` is what the seller claims): protocol fee, oracle fee and the seller's net.",
      },
      handler: async (c, { query }) => c.json(await quoteFeeAmong(rails, c.var.config, query)),
    }),
  ];
}
