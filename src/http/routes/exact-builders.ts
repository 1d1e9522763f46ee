import type { RouteDef } from "../route-def";
import { parseJsonBody } from "../parse-input";
import { withBuildRateLimit, withReadRateLimit } from "../middleware/rate-limit";
import { PaymentRequiredSchema } from "../../x402/schemas";
import { enrichPaymentRequired } from "../../schemes/exact/enrich";
import { enrichEscrowLines } from "../../schemes/sla-escrow/enrich";
import { buildExactPayment, BuildExactPaymentRequestSchema } from "../../schemes/exact/build";
import { ExactBuildResponseSchema } from "../responses/schemas";

/** The seller transform (402 enrichment, both rails) and the `exact` rail's buyer transaction builder. */
export function exactBuilderRoutes(): RouteDef[] {
  return [
    {
      key: "paymentRequiredEnrich",
      method: "POST",
      path: "/payment-required/enrich",
      tag: "Sellers",
      summary: "Rewrite a naive 402 body: exact lines pay the seller's vault PDA, sla-escrow lines the Escrow PDA, each with this facilitator's extra",
      body: PaymentRequiredSchema,
      // An anonymous read of the chain (one batched account read): under the per-client read limit like the GETs.
      handler: withReadRateLimit(async (c) => {
        const body = await parseJsonBody(c, PaymentRequiredSchema);
        const withEscrowLines = await enrichEscrowLines(c.var.config, body);
        return c.json(await enrichPaymentRequired(c.var.config, withEscrowLines, c.get("correlationId")));
      }),
    },
    {
      key: "buildExactPaymentTx",
      response: ExactBuildResponseSchema,
      agentTool: { name: "build_exact_payment", description: "Build the UNSIGNED exact payment transaction for a payment requirement. Sign it locally with the payer key (the facilitator never holds it) at payerSignatureIndex, put it in verifyBodyTemplate.paymentPayload.payload.transaction, then call settle_payment." },
      method: "POST",
      path: "/build-exact-payment-tx",
      tag: "Tx Build",
      summary: "Unsigned exact payment transaction (buyer signs; facilitator pays fees) with a ready verify/settle body",
      body: BuildExactPaymentRequestSchema,
      handler: withBuildRateLimit(async (c) => {
        const request = await parseJsonBody(c, BuildExactPaymentRequestSchema);
        return c.json(await buildExactPayment(c.var.config, request));
      }),
    },
  ];
}
