import type { Rail } from "./rail";
import type { SchemeName } from "../x402/scheme-names";
import { exactRail } from "./exact/rail";
import { slaEscrowRail } from "./sla-escrow/rail";
import { uptoRail } from "./upto/rail";

/** Rails in the order `/supported` lists them (exact first); each is listed only where it is served. */
export const RAILS: readonly Rail[] = [exactRail, slaEscrowRail, uptoRail];

/** /verify and /settle dispatch on the normalised scheme. */
export const RAIL_BY_SCHEME: ReadonlyMap<SchemeName, Rail> = new Map(RAILS.map((rail) => [rail.scheme, rail]));
