import type { RailModule } from "../rail";
import { type UptoConfigMembers, uptoConfig } from "./config";
import { refuseUptoLinesBelowMinimum, UPTO_ENRICH_REASONS } from "./enrich";
import { uptoExposure } from "./exposure";
import { uptoFeeQuote } from "./fee-quote";
import { uptoKeeperJob } from "./keeper/upto-keeper-job";
import { UPTO_PAYLOAD_SHAPE } from "./payload";
import { uptoRail } from "./rail";
import { UPTO_REJECTION_REASONS } from "./reasons";
import { uptoBuilderRoutes } from "./routes/upto-builders";
import { uptoRetention } from "./store/retention";

/**
 * The upto rail: a payment channel opened with the ceiling; the seller claims what it used, the rest returns to the
 * buyer.
 */
export const uptoModule: RailModule<UptoConfigMembers> = {
  ...uptoRail,
  config: uptoConfig,
  payload: UPTO_PAYLOAD_SHAPE,
  // A claim's requirements carry the charged amount, at most the ceiling the buyer's open authorised.
  chargeWithinAccepted: { exceedsReason: "invalid_upto_svm_payload_settlement_exceeds_amount" },
  // What the channel settled: the deposit for a deposit, the charge for a claim; both are the requirements' amount,
  // which the rail held to the payload.
  settledAmount: (requirements) => requirements.amount,
  // Nothing to rewrite; a ceiling below the minimum is refused at enrich as the builder and /verify refuse it.
  enrich: { run: (config, body) => refuseUptoLinesBelowMinimum(config, body), reasons: UPTO_ENRICH_REASONS },
  routes: [{ slot: "builders", routes: uptoBuilderRoutes }],
  jobs: [uptoKeeperJob],
  retention: uptoRetention,
  reasons: UPTO_REJECTION_REASONS,
  exposure: uptoExposure,
  quote: uptoFeeQuote,
  // An upto channel pays its split to the seller's own wallet: there is no vault or escrow address to look up.
  seller: { noLookup: "has no per-seller rail address; its payTo is the seller's own wallet" },
  describe: {
    features: (served, routes) => ({ unsignedUptoDepositTxBuild: served && routes.has("buildUptoDepositTx") }),
  },
  switches: (config) => [{ setting: config.rails.upto }],
};
