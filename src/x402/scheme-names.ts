/** Wire names of the rails and the aliases accepted on requests (docs/facilitator-spec.md §1, §9; `upto`: docs/payment-channels.md). */
export type SchemeName = "exact" | "sla-escrow" | "upto";

/** A Map, not an object literal: a caller's `constructor` or `__proto__` must not resolve to anything. */
const ALIASES: ReadonlyMap<string, SchemeName> = new Map([
  ["exact", "exact"],
  ["v2:solana:exact", "exact"],
  ["sla-escrow", "sla-escrow"],
  ["v2:solana:sla-escrow", "sla-escrow"],
  ["upto", "upto"],
  ["v2:solana:upto", "upto"],
]);

/** The canonical wire name, or null for a scheme this service does not know. */
export function normalizeScheme(scheme: string): SchemeName | null {
  return ALIASES.get(scheme) ?? null;
}
