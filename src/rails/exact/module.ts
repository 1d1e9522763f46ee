import type { RailModule } from "../rail";
import { TRANSACTION_PAYLOAD_SHAPE } from "../../x402/schemas";
import { exactRail } from "./rail";
import { enrichPaymentRequired } from "./enrich";
import { exactBuilderRoutes } from "./routes/exact-builders";
import { vaultSnapshotRoutes } from "./routes/vault-snapshot";
import { sweepRoutes } from "./routes/sweep";
import { sweepJob } from "./sweep/sweep-job";
import { exactHealth } from "./health";

/** The exact rail: one buyer-signed transfer into the seller's UniversalSettle vault, swept to the seller later. */
export const exactModule: RailModule = {
  ...exactRail,
  payload: TRANSACTION_PAYLOAD_SHAPE,
  // After the escrow lines: its own lines only, the others left as the escrow rail wrote them.
  enrich: { rank: 2, run: enrichPaymentRequired },
  routes: [
    { slot: "builders", rank: 1, routes: exactBuilderRoutes },
    { slot: "sellerTools", rank: 1, routes: vaultSnapshotRoutes },
    { slot: "operator", rank: 2, routes: sweepRoutes },
  ],
  jobs: [sweepJob],
  describe: {
    payTo: {
      payTo: "The seller's UniversalSettle SplitVault PDA: seeds [\"vault\", sellerWallet], program universalSettle.",
      splDestination: "The vault PDA's associated token account for the asset (owner = vault PDA).",
      nativeSolDestination: "The vault's SOL storage PDA: seeds [\"sol_storage\", vaultPda].",
      merchantWallet: "extra.merchantWallet carries the seller's own wallet; a bare wallet as payTo is rejected.",
      resolve: "GET /api/v1/facilitator/sellers/{wallet}/rails/exact, or POST /api/v1/facilitator/payment-required/enrich to rewrite a 402 body.",
    },
    enrich: {
      sentence: "exact lines come back paying your UniversalSettle vault PDA, with this facilitator's keys in extra (those of the exact kind in GET /supported); ",
      payTo: { payTo: "your vault PDA (seeds \"vault\", your wallet)" },
    },
    features: (served, routes) => ({
      universalSettleExact: served,
      unsignedExactPaymentTxBuild: served && routes.has("buildExactPaymentTx"),
    }),
  },
  health: exactHealth,
};
