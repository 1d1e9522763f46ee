import { STATIC_ARTIFACT_PATHS } from "../../http/self-description/static-artifacts";
import { TRANSACTION_PAYLOAD_SHAPE } from "../../x402/schemas";
import type { RailModule } from "../rail";
import { type SlaEscrowConfigMembers, slaEscrowConfig } from "./config";
import { enrichEscrowLines } from "./enrich";
import { ESCROW_AMOUNT_REASONS } from "./escrow-terms";
import { slaEscrowFeeQuote } from "./fee-quote";
import { slaEscrowHealth } from "./health";
import { escrowKeeperJob } from "./keeper/escrow-keeper-job";
import { oracleProfiles } from "./oracle-profiles";
import { slaEscrowRail } from "./rail";
import { SLA_ESCROW_REJECTION_REASONS } from "./reasons";
import { escrowBuilderRoutes } from "./routes/escrow-builders";
import { escrowKeeperRoutes } from "./routes/escrow-keeper";
import { slaEscrowSellerView } from "./seller-view";
import { slaEscrowRetention } from "./store/retention";

/**
 * The sla-escrow rail: the buyer funds an escrow; an oracle's decision or the clock releases it (the keeper pays out).
 */
export const slaEscrowModule: RailModule<SlaEscrowConfigMembers> = {
  ...slaEscrowRail,
  config: slaEscrowConfig,
  payload: TRANSACTION_PAYLOAD_SHAPE,
  enrich: { run: (config, body) => enrichEscrowLines(config, body), reasons: ESCROW_AMOUNT_REASONS },
  routes: [
    { slot: "builders", routes: escrowBuilderRoutes },
    { slot: "operator", routes: escrowKeeperRoutes },
  ],
  jobs: [escrowKeeperJob],
  retention: slaEscrowRetention,
  reasons: SLA_ESCROW_REJECTION_REASONS,
  quote: slaEscrowFeeQuote,
  seller: slaEscrowSellerView,
  describe: {
    programIds: (config) => ({ slaEscrow: config.programs.slaEscrow }),
    payTo: () => ({
      payTo:
        'The Escrow PDA of the facilitator\'s bank for the asset: seeds ["escrow", mint, bankPda], program slaEscrow.',
      merchantWallet: "extra.merchantWallet carries the seller's own wallet.",
      resolve: "GET /api/v1/facilitator/sellers/{wallet}/rails/sla-escrow?asset=USDC|SOL",
    }),
    enrich: {
      sentence:
        "sla-escrow lines come back paying the shared Escrow PDA of the line's asset, with the escrow keys in extra " +
        "and merchantWallet = your wallet (FundPayment.seller).",
      payTo: { payTo: "the Escrow PDA of the line's asset", sellerNamedIn: "extra.merchantWallet" },
    },
    features: (served, routes) => ({
      slaEscrow: served,
      unsignedSlaEscrowPaymentTxBuild: served && routes.has("buildSlaEscrowPaymentTx"),
    }),
    // docs/facilitator-spec.md §2.9: present only when the escrow rail is served.
    capabilities: (config, artifact) => ({
      slaEscrowOracleProfiles: oracleProfiles(
        config.slaEscrow.oracleProfiles,
        artifact(STATIC_ARTIFACT_PATHS.integrationGuide),
      ),
    }),
  },
  health: slaEscrowHealth,
  switches: (config) => [{ setting: config.rails.slaEscrow }],
};
