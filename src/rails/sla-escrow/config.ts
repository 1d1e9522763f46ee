import { type Address, address } from "@solana/kit";
import * as v from "valibot";
import { ConfigError } from "../../platform/config/config-error";
import { boolean, integer, mintList, optionalAddress, trimmed } from "../../platform/config/fields";
import { PUBLICLY_DERIVED_KEYS } from "../../platform/config/local-demo-keys";
import { type RailConfigInput, railConfigSlice } from "../../platform/config/rail-config";
import type { RailSwitch } from "../../platform/config/rail-switches";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "./cluster-defaults";
import { type OracleProfile, type OracleProfileConfig, OracleProfilesSchema } from "./oracle-profiles";

/** `SVC_SLA_ESCROW_ORACLE_PROFILES_JSON`: empty = null (the canonical profiles), else a validated profile array. */
const oracleProfilesJson = v.optional(
  v.pipe(
    trimmed,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (dataset.value === "") return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(dataset.value);
      } catch {
        addIssue({ message: "must be a JSON array of oracle profiles" });
        return NEVER;
      }
      const result = v.safeParse(OracleProfilesSchema, parsed);
      if (!result.success) {
        addIssue({
          message:
            `must be a JSON array of {profileId, normativeSpecUrl, repositoryPath?, defaultOperatorPubkey?, ` +
            `registryUrl?}: ${result.issues[0].message}`,
        });
        return NEVER;
      }
      return result.output as OracleProfile[];
    }),
  ),
  "",
);

/** The sla-escrow rail's configuration: sponsorship, oracles, the keeper's retention. */
export interface SlaEscrowConfigMembers {
  slaEscrow: {
    allowFacilitatorFeeSponsorship: boolean;
    sponsoredFailuresPerPayer: number;
    oracleAuthorities: Address[];
    deliveryBudgetSeconds: number;
    oracleProfiles: OracleProfileConfig;
  };
  /** The SLA-Escrow program (SLA_ESCROW_PROGRAM_ID, else the cluster's, ./cluster-defaults.ts). */
  programs: { slaEscrow: Address };
  // Its program has a publicly confirmed id on every cluster (./cluster-defaults.ts): always configured.
  rails: { slaEscrow: RailSwitch };
}

export const slaEscrowConfig = railConfigSlice({
  keys: {
    /** Empty: the cluster's program (./cluster-defaults.ts). */
    SLA_ESCROW_PROGRAM_ID: optionalAddress,
    SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: boolean(false),
    /**
     * Sponsored fundings of one payer that may fail on chain (fee paid by the fee payer) in 24 h before its sponsorship
     * is refused.
     */
    SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER: integer(1, 1_000, 2),
    /**
     * Oracle authorities a buyer may name in FundPayment (comma or space separated); advertised as
     * extra.oracleAuthorities.
     */
    SVC_SLA_ESCROW_ORACLE_AUTHORITIES: mintList,
    /** Seconds a seller needs to deliver: the escrow ttl must cover the program's delivery cutoff plus this budget. */
    SVC_SLA_ESCROW_DELIVERY_BUDGET_SECONDS: integer(0, 2_592_000, 300),
    /**
     * JSON array of oracle profiles for /capabilities (docs/facilitator-spec.md §2.9); replaces the canonical list when
     * set.
     */
    SVC_SLA_ESCROW_ORACLE_PROFILES_JSON: oracleProfilesJson,
    /** Default operator hints of the canonical oracle profiles (used when the JSON key is empty). */
    SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY: optionalAddress,
    SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY: optionalAddress,
    SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY: optionalAddress,
  },
  read: (input, { environment, cluster }): SlaEscrowConfigMembers => {
    if (environment !== "local") refuseLocalDemoKeys(input, environment);
    return {
      slaEscrow: {
        allowFacilitatorFeeSponsorship: input.SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP,
        sponsoredFailuresPerPayer: input.SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER,
        oracleAuthorities: input.SVC_SLA_ESCROW_ORACLE_AUTHORITIES.map((key) => address(key)),
        deliveryBudgetSeconds: input.SVC_SLA_ESCROW_DELIVERY_BUDGET_SECONDS,
        oracleProfiles: {
          profiles: input.SVC_SLA_ESCROW_ORACLE_PROFILES_JSON,
          defaultPubkeys: {
            apiQuality: input.SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY || null,
            onchainTransfer: input.SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY || null,
            fileDelivery: input.SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY || null,
          },
        },
      },
      programs: { slaEscrow: address(input.SLA_ESCROW_PROGRAM_ID || SLA_ESCROW_CLUSTER_DEFAULTS[cluster].programId) },
      rails: { slaEscrow: { enabled: true } },
    };
  },
});

/**
 * The demo oracle's key is derived from a public string (anyone can sign as it): outside "local" it may adjudicate
 * nothing, whichever oracle key names it.
 */
function refuseLocalDemoKeys(input: RailConfigInput<typeof slaEscrowConfig.keys>, environment: string): void {
  const named: [string, readonly string[]][] = [
    ["SVC_SLA_ESCROW_ORACLE_AUTHORITIES", input.SVC_SLA_ESCROW_ORACLE_AUTHORITIES],
    ["SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY", [input.SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY]],
    ["SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY", [input.SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY]],
    ["SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY", [input.SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY]],
  ];
  for (const [key, values] of named) {
    if (values.some((value) => PUBLICLY_DERIVED_KEYS.has(value))) {
      throw new ConfigError(
        key,
        `names the local demo oracle (its key is derived from a public string); it is refused when ENVIRONMENT is ` +
          `"${environment}"`,
      );
    }
  }
}

// Joins `Config` (declaration merging: the core's configuration type names no rail).
declare module "../../platform/config/rail-config" {
  interface RailConfigMembersByRail {
    "sla-escrow": SlaEscrowConfigMembers;
  }
}
