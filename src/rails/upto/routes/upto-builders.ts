import { route, type RouteDef } from "../../../http/route-def";
import { buildUptoDeposit, BuildUptoDepositRequestSchema } from "../build-deposit";
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
          "Build the UNSIGNED upto deposit (a payment-channel open of the ceiling `accepted.amount`) for an upto payment requirement. Sign it locally with the payer key at payerSignatureIndex, put it in verifyBodyTemplate.paymentPayload.payload.openTransaction and send that paymentPayload to the seller; the seller claims what it used and the rest returns to the payer.",
      },
      method: "POST",
      path: "/build-upto-deposit-tx",
      tag: "Tx Build",
      summary: "Unsigned upto deposit (payment-channel open; buyer signs, facilitator pays fees and rent) with the payment payload the official upto client sends",
      body: BuildUptoDepositRequestSchema,
      limit: "build",
      networkAt: [["accepted", "network"]],
      reasons: ["invalid_network", "unsupported_scheme", "asset_not_allowed", "asset_not_found", "insufficient_funds", "payer_account_unusable", "invalid_upto_svm_payload_amount_below_minimum"],
      handler: async (c, { body }) => c.json(await buildUptoDeposit(c.var.config, body)),
    }),
  ];
}
