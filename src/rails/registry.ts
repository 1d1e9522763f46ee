import type { RouteDef } from "../http/route-def";
import type { ScheduledJob } from "../jobs/scheduled-job";
import { type Config, configOf } from "../platform/config/load-config";
import type { ErrorReason } from "../platform/errors/catalogue";
import { checkCommonRequirementsAmong } from "../x402/common-checks";
import type { AcceptedRequirements, PaymentRejection } from "../x402/payment-verdict";
import {
  CORE_REJECTION_REASONS,
  FEE_PAYER_BUDGET_REJECTION_REASONS,
  type RejectionReason,
} from "../x402/rejection-reasons";
import type { PayloadShape, PaymentRequiredBody, VerifySettleBody } from "../x402/schemas";
import { verifySettleBodySchema } from "../x402/schemas";
import type { SchemeName } from "../x402/scheme-names";
import { exactModule } from "./exact/module";
import type { RailModule, RouteSlot } from "./rail";
import { slaEscrowModule } from "./sla-escrow/module";
import { uptoModule } from "./upto/module";

/**
 * The rails this Worker serves, in the order `/supported` lists them (exact first); each kind is listed only where it
 * is served. A new rail is its folder plus one line here (and a migration when it keeps state). A tuple, so that
 * `Config`'s type (platform/config/load-config.ts) joins each rail's configuration members.
 */
export const RAILS = [exactModule, slaEscrowModule, uptoModule] as const satisfies readonly RailModule[];

/**
 * The order of the rails' route groups in each slot of the API table, which is the OpenAPI document's and the MCP
 * tools' order: the plain transfer's builders first. A rail not listed here (a test's fixture) comes after these, in
 * the order of the list it was served in.
 */
const ROUTE_ORDER: Record<RouteSlot, readonly RailModule[]> = {
  builders: [exactModule, uptoModule, slaEscrowModule],
  sellerOnboarding: [exactModule],
  sellerTools: [exactModule],
  operator: [slaEscrowModule, exactModule],
};

/**
 * The order in which rails rewrite a payment-required body (each its own lines): the escrow lines first, so exact,
 * which leaves other schemes' lines as they are, sees them as the escrow rail wrote them. A rail not listed here comes
 * after these, in list order.
 */
const ENRICH_ORDER: readonly RailModule[] = [slaEscrowModule, exactModule, uptoModule];

/** `rails` in the order of `order`; a rail `order` does not name keeps its place after those it does (stable). */
function inOrder<T extends RailModule>(rails: readonly T[], order: readonly RailModule[]): T[] {
  const position = (rail: RailModule) => {
    const at = order.indexOf(rail);
    return at < 0 ? order.length : at;
  };
  return [...rails].sort((a, b) => position(a) - position(b));
}

/**
 * The Worker's configuration, from its rails' slices: `loadConfig` validates env and D1 parameters afresh,
 * `getConfig` caches per isolate (what the app's middleware and the scheduled handler read for `RAILS`).
 */
export const WORKER_CONFIG = configOf(RAILS);
export const loadConfig = WORKER_CONFIG.load;
export const getConfig = WORKER_CONFIG.get;

/*
 * The builders below take a rails list: the app and the scheduled handler pass theirs. The few values bound to
 * `RAILS` serve what has no app (tests, scripts).
 */

/** The Worker's rails by normalised scheme. */
export const RAIL_BY_SCHEME: ReadonlyMap<SchemeName, RailModule> = railsBySchemeOf(RAILS);

/** The scheme-independent checks of /verify and /settle over the Worker's rails (x402/common-checks.ts). */
export function checkCommonRequirements(
  config: Config,
  body: VerifySettleBody,
): AcceptedRequirements | PaymentRejection {
  return checkCommonRequirementsAmong(config, body, RAIL_BY_SCHEME);
}

/** The `/verify` and `/settle` body: the payload is one of the rails' shapes, in registry order. */
export const VerifySettleBodySchema = verifySettleBodySchemaOf(RAILS);

/** What the rails' enrich transforms can refuse a line with (the enrich routes list them). */
export function enrichReasonsOf(rails: readonly RailModule[]): readonly ErrorReason[] {
  return [...new Set(rails.flatMap((rail) => rail.enrich?.reasons ?? []))];
}

/** The enrich transform: every rail rewrites its own lines, in `ENRICH_ORDER`. */
export async function enrichWithRails(
  rails: readonly RailModule[],
  config: Config,
  body: PaymentRequiredBody,
  correlationId?: string,
): Promise<PaymentRequiredBody> {
  let enriched = body;
  for (const rail of inOrder(rails, ENRICH_ORDER).filter((r) => r.enrich)) {
    enriched = await rail.enrich!.run(config, enriched, correlationId);
  }
  return enriched;
}

/**
 * Every x402 rejection reason, the core's first, then the exposure budget's (its own, then the rails' caps'), then
 * each rail's in registry order (the OpenAPI document lists them).
 */
export function rejectionReasonsOf(rails: readonly RailModule[]): readonly RejectionReason[] {
  return [
    ...CORE_REJECTION_REASONS,
    ...FEE_PAYER_BUDGET_REJECTION_REASONS,
    ...rails.flatMap((rail) => rail.exposure?.reasons ?? []),
    ...rails.flatMap((rail) => rail.reasons ?? []),
  ];
}
export const REJECTION_REASONS = rejectionReasonsOf(RAILS);

/** The rails' routes of one slot of the API table, in `ROUTE_ORDER`. */
export function railRoutes(slot: RouteSlot, rails: readonly RailModule[]): RouteDef[] {
  return inOrder(rails, ROUTE_ORDER[slot])
    .flatMap((rail) => (rail.routes ?? []).filter((group) => group.slot === slot))
    .flatMap((group) => group.routes());
}

/** The rails' Cron jobs (keepers, sweep), in registry order: they share the rails' trigger. */
export function railJobs(rails: readonly RailModule[]): ScheduledJob[] {
  return rails.flatMap((rail) => rail.jobs ?? []);
}

export function railsBySchemeOf(rails: readonly RailModule[]): ReadonlyMap<SchemeName, RailModule> {
  return new Map(rails.map((rail) => [rail.scheme, rail]));
}

/** The body schema over `rails`' payload shapes: each distinct shape once, named with the schemes that send it. */
export function verifySettleBodySchemaOf(rails: readonly RailModule[]) {
  const shapes: { shape: PayloadShape; schemes: string[] }[] = [];
  for (const rail of rails) {
    const known = shapes.find((entry) => entry.shape === rail.payload);
    if (known) known.schemes.push(rail.scheme);
    else shapes.push({ shape: rail.payload, schemes: [rail.scheme] });
  }
  return verifySettleBodySchema(shapes);
}
