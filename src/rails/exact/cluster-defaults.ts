import type { ClusterName } from "../../platform/config/networks";

/**
 * The exact rail's public defaults per cluster (configuration defaults only: logic reads the validated `Config`).
 * `universalSettleProgramId` is null where no public source confirms the program's address: the operator must
 * configure it (UNIVERSAL_SETTLE_PROGRAM_ID), so a production deployment never ships an unverified program id.
 */
export const EXACT_CLUSTER_DEFAULTS = {
  mainnet: {
    // Appears in no public source (not in pr402's code or history): required in configuration instead.
    universalSettleProgramId: null,
    /** Sweep threshold for SPL vaults, raw units (docs/facilitator-spec.md §8). */
    sweepMinSplRawDefault: 3_000_000n,
  },
  devnet: {
    // Confirmed by pr402's history (miralandlabs/pr402, commits bdce437 "align with on-chain program", 644c7a2).
    universalSettleProgramId: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
    sweepMinSplRawDefault: 100_000n,
  },
} satisfies Record<ClusterName, { universalSettleProgramId: string | null; sweepMinSplRawDefault: bigint }>;
