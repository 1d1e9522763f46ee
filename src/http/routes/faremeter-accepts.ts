import type { RouteDef } from "../route-def";
import { parseJsonBody } from "../parse-input";
import { PaymentRequiredSchema } from "../../x402/schemas";
import { enrichPaymentRequired } from "../../schemes/exact/enrich";
import { enrichEscrowLines } from "../../schemes/sla-escrow/enrich";

/**
 * `POST /accepts`: Faremeter's facilitator protocol (`@faremeter/middleware` 0.22 `createHTTPFacilitatorHandler`).
 * The middleware posts `{x402Version: 2, resource, accepts}` built from the seller's configuration and reads back
 * an x402 v2 PaymentRequired whose `accepts` it serves in its 402. That is exactly the 402 enrichment, so this is
 * the same transform as `/payment-required/enrich` under the path Faremeter sellers already call: a Faremeter
 * seller switches facilitators by changing only the URL.
 */
export function faremeterAcceptsRoutes(): RouteDef[] {
  return [
    {
      key: "faremeterAccepts",
      method: "POST",
      path: "/accepts",
      tag: "Sellers",
      summary: "Faremeter facilitator protocol: enrich the seller's accepts[] (same transform as /payment-required/enrich)",
      body: PaymentRequiredSchema,
      handler: async (c) => {
        const body = await parseJsonBody(c, PaymentRequiredSchema);
        const withEscrowLines = await enrichEscrowLines(c.var.config, body);
        return c.json(await enrichPaymentRequired(c.var.config, withEscrowLines, c.get("correlationId")));
      },
    },
  ];
}
