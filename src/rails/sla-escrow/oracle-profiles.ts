import { isAddress } from "@solana/kit";
import * as v from "valibot";

/**
 * `slaEscrowOracleProfiles[]` of /capabilities (docs/facilitator-spec.md §2.9, §8): the oracle profiles a buyer can
 * name when funding an escrow. `SVC_SLA_ESCROW_ORACLE_PROFILES_JSON` (an array of profiles) replaces the list whole;
 * otherwise the three canonical profiles are listed with the per-profile default operator keys. The pubkey is only a
 * hint: FundPayment's oracleAuthority is what binds (and must be one of extra.oracleAuthorities).
 */

export interface OracleProfile {
  profileId: string;
  normativeSpecUrl: string;
  repositoryPath?: string;
  defaultOperatorPubkey?: string;
  registryUrl?: string;
}

const httpsUrl = v.pipe(
  v.string(),
  v.url("must be a URL"),
  v.check((s) => /^https?:\/\//i.test(s), "must be an http(s) URL"),
);

export const OracleProfileSchema = v.strictObject({
  profileId: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9][a-z0-9/._-]{0,127}$/, "must be a profile id like x402/oracles/api-quality/v1"),
  ),
  normativeSpecUrl: httpsUrl,
  repositoryPath: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
  defaultOperatorPubkey: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => isAddress(s), "must be a base58 Solana address"),
    ),
  ),
  registryUrl: v.optional(httpsUrl),
});
export const OracleProfilesSchema = v.pipe(v.array(OracleProfileSchema), v.maxLength(32, "at most 32 profiles"));

/** The canonical profiles (docs/facilitator-spec.md §2.9) and the config key holding each one's default operator. */
export const CANONICAL_ORACLE_PROFILES = [
  { profileId: "x402/oracles/api-quality/v1", pubkeyKey: "apiQuality" },
  { profileId: "x402/oracles/onchain-transfer/v1", pubkeyKey: "onchainTransfer" },
  { profileId: "x402/oracles/file-delivery/attestation/v1", pubkeyKey: "fileDelivery" },
] as const;

export interface OracleProfileConfig {
  /** From SVC_SLA_ESCROW_ORACLE_PROFILES_JSON; null = use the canonical list. */
  profiles: OracleProfile[] | null;
  defaultPubkeys: { apiQuality: string | null; onchainTransfer: string | null; fileDelivery: string | null };
}

/**
 * The advertised list. Canonical profiles point at this deployment's integration guide for their normative text
 * (no public URL for the profile documents is known here); an operator who has one sets the JSON key.
 */
export function oracleProfiles(config: OracleProfileConfig, integrationGuideUrl: string): OracleProfile[] {
  if (config.profiles !== null) return config.profiles;
  return CANONICAL_ORACLE_PROFILES.map(({ profileId, pubkeyKey }) => {
    const pubkey = config.defaultPubkeys[pubkeyKey];
    return {
      profileId,
      normativeSpecUrl: `${integrationGuideUrl}#oracle-profiles`,
      repositoryPath: profileId,
      ...(pubkey ? { defaultOperatorPubkey: pubkey } : {}),
    };
  });
}
