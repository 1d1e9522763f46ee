import type { Address } from "@solana/kit";
import { FacilitatorError } from "../errors/catalogue";

/**
 * Which rails the configuration lets run, and why the others do not. A rail whose required setting is absent is
 * switched off on its own (the rest of the service serves normally); a setting that is present but malformed is still
 * CONFIG_INVALID (src/platform/config/load-config.ts). Whether a switched-on rail's program is actually deployed is the rail's
 * own runtime check (`supportedExtra` answering null).
 */
export type RailSwitch = { enabled: true } | { enabled: false; why: string };

/** The `exact` rail has two `payTo` forms, switched separately; the other rails have one each. */
export interface RailSwitches {
  /** `payTo` = the seller's UniversalSettle vault: needs the UniversalSettle program id. */
  exactVault: RailSwitch;
  /** `payTo` = the seller's own wallet (its associated token account receives the transfer): SVC_EXACT_WALLET_PAYTO. */
  exactWallet: RailSwitch;
  slaEscrow: RailSwitch;
  upto: RailSwitch;
}

const ON: RailSwitch = { enabled: true };

export function railSwitches(settings: { universalSettle: Address | null; exactWalletPayTo: boolean; cluster: string }): RailSwitches {
  return {
    exactVault: settings.universalSettle
      ? ON
      : {
          enabled: false,
          why: `UNIVERSAL_SETTLE_PROGRAM_ID is not set and no public source confirms a UniversalSettle program id on ${settings.cluster}, so the vault form of exact is not offered`,
        },
    exactWallet: settings.exactWalletPayTo
      ? ON
      : { enabled: false, why: "SVC_EXACT_WALLET_PAYTO is off: this deployment settles exact only into sellers' vaults" },
    // Both programs have publicly confirmed ids on every cluster (src/platform/config/networks.ts), so they are always configured.
    slaEscrow: ON,
    upto: ON,
  };
}

/** The refusal of a route or builder that needs a rail this deployment does not run (503: an operator's choice, not the caller's mistake). */
export function railNotEnabled(rail: string, why: string, fields: Record<string, unknown> = {}): FacilitatorError {
  return new FacilitatorError("RAIL_NOT_ENABLED", `The ${rail} rail is not enabled on this deployment: ${why}`, {
    reason: "rail_not_enabled",
    fields: { rail, ...fields },
  });
}

/** The UniversalSettle program id for a route that only makes sense with vaults; 503 `rail_not_enabled` when none is configured. */
export function requireUniversalSettle(config: { programs: { universalSettle: Address | null }; rails: RailSwitches }): Address {
  const programId = config.programs.universalSettle;
  if (programId !== null) return programId;
  const exactVault = config.rails.exactVault;
  throw railNotEnabled("exact (vault payTo)", exactVault.enabled ? "no UniversalSettle program id" : exactVault.why);
}
