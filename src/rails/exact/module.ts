import type { RailModule } from "../rail";
import { TRANSACTION_PAYLOAD_SHAPE } from "../../x402/schemas";
import { exactRail } from "./rail";
import { enrichPaymentRequired } from "./enrich";
import { exactBuilderRoutes } from "./routes/exact-builders";
import { vaultSnapshotRoutes } from "./routes/vault-snapshot";
import { sweepRoutes } from "./routes/sweep";
import { sweepJob } from "./sweep/sweep-job";

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
};
