import { route, type RouteDef } from "../route-def";
import { FEE_QUOTE_REASONS, FeeQuoteQuerySchema, quoteFee } from "../../rails/registry";

/** GET /fee-quote: protocol fee, oracle fee and what the seller nets, for buyers, sellers and agents alike. */
export function feeQuoteRoutes(): RouteDef[] {
  return [
    route({
      key: "feeQuote",
      method: "GET",
      path: "/fee-quote",
      tag: "Discovery",
      summary: "Fee quote for one payment: protocol fee, oracle fee (sla-escrow) and what the seller nets, from on-chain settings and the seller's tier (upto: of the claimed amount)",
      query: FeeQuoteQuerySchema,
      reasons: FEE_QUOTE_REASONS,
      agentTool: {
        name: "fee_quote",
        description: "Quote the fees of a payment of `amount` raw units of `asset` to seller `wallet` on the exact, sla-escrow or upto rail (upto: `amount` is what the seller claims): protocol fee, oracle fee and the seller's net.",
      },
      handler: async (c, { query }) => c.json(await quoteFee(c.var.config, query)),
    }),
  ];
}
