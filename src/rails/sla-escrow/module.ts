import type { RailModule } from "../rail";
import { TRANSACTION_PAYLOAD_SHAPE } from "../../x402/schemas";
import { slaEscrowRail } from "./rail";
import { enrichEscrowLines } from "./enrich";
import { escrowBuilderRoutes } from "./routes/escrow-builders";
import { escrowKeeperRoutes } from "./routes/escrow-keeper";
import { escrowKeeperJob } from "./keeper/escrow-keeper-job";

/** The sla-escrow rail: the buyer funds an escrow; an oracle's decision or the clock releases it (the keeper pays out). */
export const slaEscrowModule: RailModule = {
  ...slaEscrowRail,
  payload: TRANSACTION_PAYLOAD_SHAPE,
  enrich: { rank: 1, run: (config, body) => enrichEscrowLines(config, body) },
  routes: [
    { slot: "builders", rank: 3, routes: escrowBuilderRoutes },
    { slot: "operator", rank: 1, routes: escrowKeeperRoutes },
  ],
  jobs: [escrowKeeperJob],
};
