import { type RouteDef, route } from "../../../http/route-def";
import {
  BuildMutualActionRequestSchema,
  BuildResolveSplitRequestSchema,
  buildMutualAction,
  buildResolveSplit,
} from "../build-dispute-steps";
import { BuildOracleConfirmRequestSchema, buildOracleConfirm } from "../build-oracle-confirm";
import {
  BuildApproveRequestSchema,
  BuildDisputeRequestSchema,
  BuildSubmitDeliveryRequestSchema,
  buildApprove,
  buildDispute,
  buildSubmitDelivery,
} from "../build-party-tx";
import { BuildEscrowPaymentRequestSchema, buildEscrowPayment } from "../build-payment";
import { BuildEscrowPaymentV2RequestSchema, buildEscrowPaymentV2 } from "../build-payment-v2";
import { BuildEscrowSettleRequestSchema, buildEscrowSettle } from "../build-settle-tx";
import { ESCROW_TERMS_REASONS, FUNDING_LIMIT_REASONS } from "../escrow-terms";
import {
  EscrowBuildResponseSchema,
  EscrowSettleBuildResponseSchema,
  EscrowV2BuildResponseSchema,
  PartyBuildResponseSchema,
} from "./responses";

/** The escrow builders' answer (501) on a cluster where the escrow's accounts for the mint do not exist. */
const ESCROW_NOT_CONFIGURED = "not_implemented";

/**
 * The `sla-escrow` rail's transaction builders: funding for the buyer, then lifecycle steps each signed only by the
 * party the program names (the oracle's verdict included).
 */
export function escrowBuilderRoutes(): RouteDef[] {
  return [
    route({
      key: "buildSlaEscrowPaymentTx",
      method: "POST",
      path: "/build-sla-escrow-payment-tx",
      tag: "Tx Build",
      summary:
        "Unsigned FundPayment for the buyer (buyer pays the network fee unless the operator allows sponsorship); " +
        "payTo = the Escrow PDA",
      body: BuildEscrowPaymentRequestSchema,
      response: EscrowBuildResponseSchema,
      networkAt: [["accepted", "network"]],
      reasons: [
        "invalid_network",
        "unsupported_scheme",
        "asset_not_allowed",
        "asset_not_found",
        "insufficient_funds",
        ...ESCROW_TERMS_REASONS,
      ],
      agentTool: {
        name: "build_escrow_payment",
        description:
          "Build the UNSIGNED sla-escrow FundPayment transaction for a payment requirement (payTo = the Escrow PDA). " +
          "Sign it locally at payerSignatureIndex, put it in verifyBodyTemplate.paymentPayload.payload.transaction, " +
          "then call settle_payment.",
      },
      limit: "build",
      handler: async (c, { body }) => c.json(await buildEscrowPayment(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowPaymentV2Tx",
      reasons: [ESCROW_NOT_CONFIGURED, ...FUNDING_LIMIT_REASONS],
      method: "POST",
      path: "/build-sla-escrow-payment-v2-tx",
      tag: "Tx Build",
      summary:
        "Unsigned FundPaymentV2 for the buyer: an extended payment with its PaymentExt (adjudicator, arbitration " +
        "window)",
      body: BuildEscrowPaymentV2RequestSchema,
      response: EscrowV2BuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildEscrowPaymentV2(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowSubmitDeliveryTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/build-sla-escrow-submit-delivery-tx",
      tag: "Tx Build",
      summary: "Unsigned SubmitDelivery for the recorded seller (refused past expires_at − delivery_cutoff)",
      body: BuildSubmitDeliveryRequestSchema,
      response: PartyBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildSubmitDelivery(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowApproveTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/build-sla-escrow-approve-tx",
      tag: "Tx Build",
      summary: "Unsigned ApproveDelivery for the recorded buyer of a payment with a submitted delivery",
      body: BuildApproveRequestSchema,
      response: PartyBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildApprove(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowDisputeTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/build-sla-escrow-dispute-tx",
      tag: "Tx Build",
      summary: "Unsigned DisputePayment for the recorded buyer of a FundPaymentV2 payment",
      body: BuildDisputeRequestSchema,
      response: PartyBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildDispute(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowMutualActionTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/build-sla-escrow-mutual-action-tx",
      tag: "Tx Build",
      summary:
        "Unsigned Propose/AcceptMutualAction (rotate adjudicator or extend TTL) for the recorded buyer or seller",
      body: BuildMutualActionRequestSchema,
      response: PartyBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildMutualAction(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowResolveSplitTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/build-sla-escrow-resolve-split-tx",
      tag: "Tx Build",
      summary:
        "Unsigned ResolveWithSplit for the adjudicator: a bps award (≤ 10,000) that settles the payment atomically",
      body: BuildResolveSplitRequestSchema,
      response: PartyBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildResolveSplit(c.var.config, body)),
    }),
    route({
      key: "buildOracleConfirmTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/oracle/build-confirm",
      tag: "Tx Build",
      summary:
        "Unsigned ConfirmOracle (the verdict) for the payment's recorded oracle; paymentUid (string) or paymentUidHex",
      body: BuildOracleConfirmRequestSchema,
      response: PartyBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildOracleConfirm(c.var.config, body)),
    }),
    route({
      key: "buildSlaEscrowSettleTx",
      reasons: [ESCROW_NOT_CONFIGURED],
      method: "POST",
      path: "/build-sla-escrow-settle-tx",
      tag: "Tx Build",
      summary:
        'Unsigned ReleasePayment or RefundPayment the program allows now ("settle now"), paid and signed by ' +
        "feePayer, by default the payout's recipient",
      body: BuildEscrowSettleRequestSchema,
      response: EscrowSettleBuildResponseSchema,
      limit: "build",
      handler: async (c, { body }) => c.json(await buildEscrowSettle(c.var.config, body)),
    }),
  ];
}
