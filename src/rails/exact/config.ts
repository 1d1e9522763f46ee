import { type Address, address } from "@solana/kit";
import * as v from "valibot";
import {
  boolean,
  integer,
  mintList,
  mintThresholdMap,
  optionalAddress,
  trimmed,
  u64,
} from "../../platform/config/fields";
import { railConfigSlice } from "../../platform/config/rail-config";
import type { RailSwitch } from "../../platform/config/rail-switches";
import { EXACT_CLUSTER_DEFAULTS } from "./cluster-defaults";

const ON: RailSwitch = { enabled: true };

/** The exact rail's configuration: just-in-time vaults, the sweep, and which `payTo` forms run. */
export interface ExactConfigMembers {
  limits: {
    /**
     * Smallest payment per mint for which a vault is fronted; the program's recovery target applies to unlisted mints.
     */
    jitMinPaymentRawByMint: Record<string, bigint>;
    jitProvisioningDailyCap: number;
  };
  sweep: {
    cooldownSeconds: number;
    recentSettleWindowSeconds: number;
    batchLimit: number;
    minSpendableLamports: bigint;
    minSplRawDefault: bigint;
    minSplRawByMint: Record<string, bigint>;
  };
  /**
   * Smart-wallet buyers (Swig, Squads…), verified by what the transaction does in a simulation (docs/money-rules.md
   * "Smart-wallet payments"): off unless the operator turns it on, as in the official facilitator.
   */
  exactSmartWallet: {
    enabled: boolean;
    /** Programs a smart-wallet payment may call at top level (besides ComputeBudget and Memo). */
    allowedPrograms: ReadonlySet<string>;
    maxComputeUnits: number;
    maxPriorityFeeMicroLamports: bigint;
  };
  /**
   * The UniversalSettle program (UNIVERSAL_SETTLE_PROGRAM_ID, else the cluster's, ./cluster-defaults.ts); null where
   * none is configured: the vault form is then off (`rails`).
   */
  programs: { universalSettle: Address | null };
  /** The two `payTo` forms, switched separately (platform/config/rail-switches.ts). */
  rails: {
    /** `payTo` = the seller's UniversalSettle vault: needs the UniversalSettle program id. */
    exactVault: RailSwitch;
    /**
     * `payTo` = the seller's own wallet (its associated token account receives the transfer): SVC_EXACT_WALLET_PAYTO.
     */
    exactWallet: RailSwitch;
  };
}

/**
 * The official @x402/svm 2.27 exact facilitator's defaults (`DEFAULT_SMART_WALLET_ALLOWED_PROGRAMS`,
 * `DEFAULT_SMART_WALLET_MAX_COMPUTE_UNITS`, `DEFAULT_SMART_WALLET_MAX_PRIORITY_FEE_MICROLAMPORTS`).
 */
export const DEFAULT_SMART_WALLET_PROGRAMS = [
  "SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf", // Squads Multisig v4
  "SMRTzfY6DfH5ik3TKiyLFfXexV8uSG3d2UksSCYdunG", // Squads Smart Account
  "SWiGmQedKzMz1tiTqoJCWeGDnGXfNBp2PkXLkpCAtQo", // Swig (legacy)
  "swigypWHEksbC64pWKwah1WTeh9JXwx8H1rJHLdbQMB", // Swig v2
  "GovER5Lthms3bLBqWub97yVrMmEogzX7xNjdXpPPCVZw", // SPL Governance
  "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d", // Metaplex Core
  "L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95", // Lighthouse (wallet guard assertions)
] as const;
const DEFAULT_SMART_WALLET_MAX_COMPUTE_UNITS = 400_000;
const DEFAULT_SMART_WALLET_MAX_PRIORITY_FEE_MICRO_LAMPORTS = 50_000n;

export const exactConfig = railConfigSlice({
  keys: {
    /** Empty: the cluster's program, where a public source confirms one (./cluster-defaults.ts). */
    UNIVERSAL_SETTLE_PROGRAM_ID: optionalAddress,
    /**
     * Smart-wallet payments verified by their simulated outcome (official: `enableSmartWalletVerification`, off there).
     * On: every lamport such a payment can cost the fee payer is its network fee, booked before the send under the
     * per-buyer caps (docs/money-rules.md "Smart-wallet payments").
     */
    SVC_EXACT_SMART_WALLETS: boolean(true),
    /** Top-level programs a smart-wallet payment may call, separated by commas; empty = the official list. */
    SVC_EXACT_SMART_WALLET_PROGRAMS: mintList,
    SVC_EXACT_SMART_WALLET_MAX_COMPUTE_UNITS: integer(1, 1_400_000, DEFAULT_SMART_WALLET_MAX_COMPUTE_UNITS),
    SVC_EXACT_SMART_WALLET_MAX_PRIORITY_FEE_MICRO_LAMPORTS: u64(DEFAULT_SMART_WALLET_MAX_PRIORITY_FEE_MICRO_LAMPORTS),
    SVC_JIT_PROVISIONING_DAILY_CAP: integer(0, 1_000_000, 25),
    /**
     * JSON map mint → smallest payment for which a vault is fronted (raw units); default: the program's recovery
     * target.
     */
    SVC_JIT_MIN_PAYMENT_RAW_BY_MINT: mintThresholdMap,
    SVC_SWEEP_CRON_COOLDOWN_SEC: integer(0, 31_536_000, 300),
    SVC_SWEEP_CRON_RECENT_SETTLE_WINDOW_SEC: integer(0, 31_536_000, 86_400),
    SVC_SWEEP_CRON_BATCH_LIMIT: integer(1, 1_000, 50),
    SVC_SWEEP_MIN_SPENDABLE_LAMPORTS: u64(30_000_000n),
    /** Empty means the cluster default: 3 USDC on mainnet, 0.10 USDC on devnet (docs/facilitator-spec.md §8). */
    SVC_SWEEP_MIN_SPL_RAW_DEFAULT: v.optional(
      v.union([v.literal(""), v.pipe(trimmed, v.regex(/^\d{1,20}$/, "must be a whole number"))]),
      "",
    ),
    SVC_SWEEP_MIN_SPL_RAW_BY_MINT: mintThresholdMap,
    /**
     * `exact` to the seller's own wallet (its token account for the mint), as the official facilitator settles it,
     * beside the vault path. Empty = on in local, and on wherever the vault form is not configured (no UniversalSettle
     * program id): a mainnet deployment then serves `exact` out of the box, every lamport of its fee payer's spend
     * booked and capped (docs/money-rules.md). Where the vault form runs, the wallet form is off unless the operator
     * opts in (docs/facilitator-spec.md §1 rule 1: the vault is the seed's form).
     */
    SVC_EXACT_WALLET_PAYTO: v.optional(
      v.pipe(
        trimmed,
        v.toLowerCase(),
        v.picklist(["", "true", "false", "1", "0", "yes", "no"], "must be true/false, 1/0 or yes/no"),
      ),
      "",
    ),
  },
  read: (input, { environment, cluster }): ExactConfigMembers => {
    // Absent (no public source confirms one on this cluster): the vault form is off, everything else serves.
    const programId = input.UNIVERSAL_SETTLE_PROGRAM_ID || EXACT_CLUSTER_DEFAULTS[cluster].universalSettleProgramId;
    const universalSettle = programId ? address(programId) : null;
    const exactWalletPayTo =
      input.SVC_EXACT_WALLET_PAYTO === ""
        ? environment === "local" || !universalSettle
        : ["true", "1", "yes"].includes(input.SVC_EXACT_WALLET_PAYTO);
    return {
      limits: {
        jitMinPaymentRawByMint: input.SVC_JIT_MIN_PAYMENT_RAW_BY_MINT,
        jitProvisioningDailyCap: input.SVC_JIT_PROVISIONING_DAILY_CAP,
      },
      sweep: {
        cooldownSeconds: input.SVC_SWEEP_CRON_COOLDOWN_SEC,
        recentSettleWindowSeconds: input.SVC_SWEEP_CRON_RECENT_SETTLE_WINDOW_SEC,
        batchLimit: input.SVC_SWEEP_CRON_BATCH_LIMIT,
        minSpendableLamports: input.SVC_SWEEP_MIN_SPENDABLE_LAMPORTS,
        minSplRawDefault: input.SVC_SWEEP_MIN_SPL_RAW_DEFAULT
          ? BigInt(input.SVC_SWEEP_MIN_SPL_RAW_DEFAULT)
          : EXACT_CLUSTER_DEFAULTS[cluster].sweepMinSplRawDefault,
        minSplRawByMint: input.SVC_SWEEP_MIN_SPL_RAW_BY_MINT,
      },
      exactSmartWallet: {
        enabled: input.SVC_EXACT_SMART_WALLETS,
        allowedPrograms: new Set(
          input.SVC_EXACT_SMART_WALLET_PROGRAMS.length > 0
            ? input.SVC_EXACT_SMART_WALLET_PROGRAMS
            : DEFAULT_SMART_WALLET_PROGRAMS,
        ),
        maxComputeUnits: input.SVC_EXACT_SMART_WALLET_MAX_COMPUTE_UNITS,
        maxPriorityFeeMicroLamports: input.SVC_EXACT_SMART_WALLET_MAX_PRIORITY_FEE_MICRO_LAMPORTS,
      },
      programs: { universalSettle },
      rails: {
        exactVault: universalSettle
          ? ON
          : {
              enabled: false,
              why:
                `UNIVERSAL_SETTLE_PROGRAM_ID is not set and no public source confirms a UniversalSettle program ` +
                `id on ${cluster}, so the vault form of exact is not offered`,
            },
        exactWallet: exactWalletPayTo
          ? ON
          : {
              enabled: false,
              why:
                input.SVC_EXACT_WALLET_PAYTO === ""
                  ? "SVC_EXACT_WALLET_PAYTO is off (the default where the vault form runs): this deployment settles " +
                    "exact only into sellers' vaults"
                  : "SVC_EXACT_WALLET_PAYTO is off: this deployment settles exact only into sellers' vaults",
            },
      },
    };
  },
});

// Joins `Config` (declaration merging: the core's configuration type names no rail).
declare module "../../platform/config/rail-config" {
  interface RailConfigMembersByRail {
    exact: ExactConfigMembers;
  }
}
