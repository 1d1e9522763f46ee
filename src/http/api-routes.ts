import type { RailModule } from "../rails/rail";
import { railRoutes } from "../rails/registry";
import type { EndpointInfo, RouteDef } from "./route-def";
import { bazaarRoutes } from "./routes/bazaar";
import { directoryStatsRoutes } from "./routes/directory-stats";
import { discoveryRoutes } from "./routes/discovery";
import { feeQuoteRoutes } from "./routes/fee-quote";
import { paymentRequiredRoutes } from "./routes/payment-required";
import { paymentRoutes } from "./routes/payments";
import { providerRoutes } from "./routes/providers";
import { refundBuilderRoutes } from "./routes/refund-builder";
import { resourceRoutes } from "./routes/resources";
import { sellerRoutes } from "./routes/sellers";
import { settlementRoutes } from "./routes/settlements";

/**
 * Every route of the API, one group per URL feature (`http/routes/<feature>.ts`), the rails' own groups where their
 * slot puts them (`RailModule.routes`). The router, `/capabilities`,
 * `/openapi.json`, `/agent-tools.json` and the MCP tools all read this one table; a new route is one entry in a group.
 * `endpoints` is read at request time, so capabilities lists every mounted route. `rails`: the rails served (app.ts).
 */
export function apiRoutes(endpoints: () => readonly EndpointInfo[], rails: readonly RailModule[]): RouteDef[] {
  return [
    ...discoveryRoutes(endpoints, rails),
    ...paymentRoutes(rails),
    ...settlementRoutes(),
    ...paymentRequiredRoutes(rails),
    ...railRoutes("builders", rails),
    ...refundBuilderRoutes(),
    ...sellerRoutes(rails),
    ...railRoutes("sellerTools", rails),
    ...providerRoutes(),
    ...resourceRoutes(),
    ...directoryStatsRoutes(),
    ...bazaarRoutes(rails),
    ...feeQuoteRoutes(rails),
    ...railRoutes("operator", rails),
  ];
}
