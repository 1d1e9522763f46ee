import { PAYMENT_MINT_REASONS } from "../../../chain/buyer-source";
import { SOURCE_FUNDS_REASONS } from "../../../chain/source-funds";
import { type RouteDef, route } from "../../../http/route-def";
import { BuildUptoDepositRequestSchema, buildUptoDeposit } from "../build-deposit";
import { CHANNEL_TERMS_REASONS } from "../channel-terms";
import { UPTO_MINT_SCREEN_REASONS } from "../mint-screen";
import { UptoDepositBuildResponseSchema } from "./responses";

/** The `upto` rail's buyer transaction builder: the unsigned channel open (the deposit of the ceiling). */
export function uptoBuilderRoutes(): RouteDef[] {
  return [
    route({
      key: "buildUptoDepositTx",
      response: UptoDepositBuildResponseSchema,
      agentTool: {
        name: "build_upto_deposit",
        description:
          "Build the UNSIGNED upto deposit (a payment-channel open of the ceiling `accepted.amount`) for an upto " +
          "payment requirement. Sign it locally with the payer key at payerSignatureIndex, put it in " +
          "verifyBodyTemplate.paymentPayload.payload.openTransaction and send that paymentPayload to the seller; the " +
          "seller claims what it used and the rest returns to the payer.",
      },
      method: "POST",
      path: "/build-upto-deposit-tx",
      tag: "Tx Build",
      summary:
        "Unsigned upto deposit (payment-channel open; buyer signs, facilitator pays fees and rent) with the payment " +
        "payload the official upto client sends",
      body: BuildUptoDepositRequestSchema,
      limit: "build",
      networkAt: [["accepted", "network"]],
      reasons: [
        "invalid_network",
        "unsupported_scheme",
        "asset_not_allowed",
        ...PAYMENT_MINT_REASONS,
        ...UPTO_MINT_SCREEN_REASONS,
        ...SOURCE_FUNDS_REASONS,
        ...CHANNEL_TERMS_REASONS,
        "invalid_upto_svm_payload_amount_below_minimum",
        "invalid_upto_svm_payout_account_unusable",
      ],
      handler: async (c, { body }) => c.json(await buildUptoDeposit(c.var.config, body)),
    }),
  ];
}
