import type { Address } from "@solana/kit";
import { type RailSwitch, railNotEnabled } from "../../platform/config/rail-switches";

/**
 * The UniversalSettle program id for a route that only makes sense with vaults; 503 `rail_not_enabled` when none is
 * configured.
 */
export function requireUniversalSettle(config: {
  programs: { universalSettle: Address | null };
  rails: { exactVault: RailSwitch };
}): Address {
  const programId = config.programs.universalSettle;
  if (programId !== null) return programId;
  const exactVault = config.rails.exactVault;
  throw railNotEnabled("exact (vault payTo)", exactVault.enabled ? "no UniversalSettle program id" : exactVault.why);
}
