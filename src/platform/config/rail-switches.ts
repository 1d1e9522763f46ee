import { type ErrorReason, FacilitatorError } from "../errors/catalogue";

/**
 * Which rails the configuration lets run, and why the others do not. A rail whose required setting is absent is
 * switched off on its own (the rest of the service serves normally); a setting that is present but malformed is still
 * CONFIG_INVALID (src/platform/config/load-config.ts). Each rail's configuration slice (`rails/<scheme>/config.ts`)
 * reads its switches into `Config.rails`. Whether a switched-on rail's program is actually deployed is the rail's
 * own runtime check (`supportedExtra` answering null).
 */
export type RailSwitch = { enabled: true } | { enabled: false; why: string };

/** What a route that needs a switched rail can answer. */
export const RAIL_SWITCH_REASONS = ["rail_not_enabled"] as const satisfies readonly ErrorReason[];

/**
 * The refusal of a route or builder that needs a rail this deployment does not run (503: an operator's choice, not the
 * caller's mistake).
 */
export function railNotEnabled(rail: string, why: string, fields: Record<string, unknown> = {}): FacilitatorError {
  return new FacilitatorError("RAIL_NOT_ENABLED", `The ${rail} rail is not enabled on this deployment: ${why}`, {
    reason: "rail_not_enabled",
    fields: { rail, ...fields },
  });
}
