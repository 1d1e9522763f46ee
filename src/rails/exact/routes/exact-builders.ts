import { PAYMENT_MINT_REASONS } from "../../../chain/buyer-source";
import { SOURCE_FUNDS_REASONS } from "../../../chain/source-funds";
import { type RouteDef, route } from "../../../http/route-def";
import { RAIL_SWITCH_REASONS } from "../../../platform/config/rail-switches";
import { BuildExactPaymentRequestSchema, buildExactPayment } from "../build";
import { EXACT_MINT_SCREEN_REASONS } from "../payment-mint";
import { ExactBuildResponseSchema } from "./responses";

/** The `exact` rail's buyer transaction builder. */
export function exactBuilderRoutes(): RouteDef[] {
  return [
    route({
      key: "buildExactPaymentTx",
      response: ExactBuildResponseSchema,
      agentTool: {
        name: "build_exact_payment",
        description:
          "Build the UNSIGNED exact payment transaction for a payment requirement. Sign it locally with the payer " +
          "key (the facilitator never holds it) at payerSignatureIndex, put it in " +
          "verifyBodyTemplate.paymentPayload.payload.transaction, then call settle_payment.",
      },
      method: "POST",
      path: "/build-exact-payment-tx",
      tag: "Tx Build",
      summary:
        "Unsigned exact payment transaction (buyer signs; facilitator pays fees) with a ready verify/settle body",
      body: BuildExactPaymentRequestSchema,
      limit: "build",
      networkAt: [["accepted", "network"]],
      reasons: [
        "invalid_network",
        "unsupported_scheme",
        "asset_not_allowed",
        ...PAYMENT_MINT_REASONS,
        ...EXACT_MINT_SCREEN_REASONS,
        ...SOURCE_FUNDS_REASONS,
        "invalid_exact_svm_payload_amount_below_minimum",
        "invalid_exact_svm_fee_payer_mismatch",
        "invalid_exact_svm_payload_recipient_mismatch",
        "invalid_exact_svm_payload_recipient_token_account_missing",
        "merchant_wallet_unresolved",
        ...RAIL_SWITCH_REASONS,
      ],
      handler: async (c, { body }) => c.json(await buildExactPayment(c.var.config, body)),
    }),
  ];
}
