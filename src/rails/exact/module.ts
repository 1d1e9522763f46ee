import { formatUnits } from "../../chain/source-funds";
import { TRANSACTION_PAYLOAD_SHAPE } from "../../x402/schemas";
import type { RailModule } from "../rail";
import { type ExactConfigMembers, exactConfig } from "./config";
import { EXACT_ENRICH_REASONS, enrichPaymentRequired } from "./enrich";
import { exactFeeQuote } from "./fee-quote";
import { exactHealth } from "./health";
import { minimumPaymentRaw } from "./minimum-amount";
import { exactRail } from "./rail";
import { EXACT_REJECTION_REASONS } from "./reasons";
import { exactBuilderRoutes } from "./routes/exact-builders";
import { sellerProvisioningRoutes } from "./routes/seller-provisioning";
import { sweepRoutes } from "./routes/sweep";
import { vaultSnapshotRoutes } from "./routes/vault-snapshot";
import { exactPaidAddresses, exactSellerRegistration } from "./seller-registration";
import { exactSellerView } from "./seller-view";
import { sweepJob } from "./sweep/sweep-job";

const USDC_DECIMALS = 6;

/** The exact rail: one buyer-signed transfer into the seller's UniversalSettle vault, swept to the seller later. */
export const exactModule: RailModule<ExactConfigMembers> = {
  ...exactRail,
  config: exactConfig,
  payload: TRANSACTION_PAYLOAD_SHAPE,
  // Its own lines only, the others left as the escrow rail wrote them (rails/registry.ts: ENRICH_ORDER).
  enrich: { run: enrichPaymentRequired, reasons: EXACT_ENRICH_REASONS },
  routes: [
    { slot: "builders", routes: exactBuilderRoutes },
    { slot: "sellerOnboarding", routes: sellerProvisioningRoutes },
    { slot: "sellerTools", routes: vaultSnapshotRoutes },
    { slot: "operator", routes: sweepRoutes },
  ],
  jobs: [sweepJob],
  reasons: EXACT_REJECTION_REASONS,
  quote: exactFeeQuote,
  seller: { ...exactSellerView, paidAddresses: exactPaidAddresses, registration: exactSellerRegistration },
  describe: {
    programIds: (config) => ({ universalSettle: config.programs.universalSettle }),
    // The smallest exact payment in USDC, as /verify applies it (docs/guides/seller.md states it).
    guideFigures: async (config) => {
      const minimum = await minimumPaymentRaw(config, config.mints.usdc, false);
      return { minimumPayment: `${formatUnits(minimum, USDC_DECIMALS)} USDC (${minimum} raw units)` };
    },
    payTo: (config) => ({
      payTo: 'The seller\'s UniversalSettle SplitVault PDA: seeds ["vault", sellerWallet], program universalSettle.',
      splDestination: "The vault PDA's associated token account for the asset (owner = vault PDA).",
      nativeSolDestination: 'The vault\'s SOL storage PDA: seeds ["sol_storage", vaultPda].',
      merchantWallet: config.rails.exactWallet.enabled
        ? "extra.merchantWallet carries the seller's own wallet on a vault line; a line without it whose payTo is a " +
          "wallet pays that wallet's own token account for the asset (no vault, no protocol fee; SPL tokens only)."
        : "extra.merchantWallet carries the seller's own wallet; a bare wallet as payTo is rejected " +
          "(SVC_EXACT_WALLET_PAYTO is off).",
      payToForms: [
        ...(config.rails.exactVault.enabled ? ["vault"] : []),
        ...(config.rails.exactWallet.enabled ? ["wallet"] : []),
      ],
      resolve:
        "GET /api/v1/facilitator/sellers/{wallet}/rails/exact, or POST /api/v1/facilitator/payment-required/enrich " +
        "to rewrite a 402 body.",
    }),
    enrich: {
      sentence:
        "exact lines come back paying your UniversalSettle vault PDA, with this facilitator's keys in extra (those " +
        "of the exact kind in GET /supported); ",
      payTo: { payTo: 'your vault PDA (seeds "vault", your wallet)' },
    },
    features: (served, routes, config) => ({
      universalSettleExact: served && config.rails.exactVault.enabled,
      // exact to the seller's own wallet (SVC_EXACT_WALLET_PAYTO), beside or instead of the vault.
      exactWalletPayTo: served && config.rails.exactWallet.enabled,
      unsignedExactPaymentTxBuild: served && routes.has("buildExactPaymentTx"),
      operatorSweeps: routes.has("sweep") && routes.has("sweepCron") && routes.has("vaultSnapshot"),
    }),
  },
  health: exactHealth,
  switches: (config) => [
    { payToForm: "vault", setting: config.rails.exactVault },
    { payToForm: "wallet", setting: config.rails.exactWallet },
  ],
};
