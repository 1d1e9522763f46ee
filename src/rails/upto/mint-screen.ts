import type { MintInfo } from "../../chain/mint";
import { refusedChannelMintExtension } from "../../chain/token-extensions";
import type { Config } from "../../platform/config/load-config";
import { type ErrorReason, type FacilitatorError, refused } from "../../platform/errors/catalogue";

/**
 * What makes an upto open worth the rent it makes the fee payer front (issue 32 §2), decided from the mint the deposit
 * reads anyway (no RPC): a ceiling large enough to be a payment, and a mint nobody untrusted can freeze. The builder,
 * /verify and /settle apply the same rules.
 */

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * The smallest ceiling (raw units) of an upto payment in `mint`: the operator's SVC_UPTO_MIN_CEILING_RAW_BY_MINT entry,
 * else the larger of SVC_MIN_PAYMENT_RAW_BY_MINT's entry and 0.01 of a whole token — the exact rail's documented
 * minimum for a 6-decimal stablecoin (0.01 USDC, the UniversalSettle program's minimum fee), kept for any decimals.
 * An open fronts ~0.0047 SOL of rent for the channel's lifetime; a one-unit ceiling would be worth nothing to anyone.
 */
export function uptoMinimumCeilingRaw(config: Config, mint: Pick<MintInfo, "address" | "decimals">): bigint {
  const own = config.upto.minCeilingRawByMint;
  if (Object.hasOwn(own, mint.address)) return own[mint.address]!;
  const hundredth = 10n ** BigInt(Math.max(0, mint.decimals - 2));
  const exact = config.limits.minPaymentRawByMint;
  return Object.hasOwn(exact, mint.address) ? max(exact[mint.address]!, hundredth) : hundredth;
}

/** The sentence of a ceiling below the minimum, the same on enrich, the deposit builder and /verify. */
export function uptoBelowMinimumMessage(ceiling: bigint, minimum: bigint, mint: string): string {
  return (
    `the ` +
    `ceiling ${ceiling} is below this facilitator's minimum ` +
    `of ${minimum} raw units for ${mint} (an open fronts a channel's rent)`
  );
}

/**
 * Open-mint mode (no SVC_ALLOWED_PAYMENT_MINTS, meant for local and devnet): a mint whose freeze authority could freeze
 * a channel's escrow token account — the keeper's Distribute would then fail for good and the channel's rent stay
 * locked — is refused unless that authority is in SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES or the mint is the cluster's USDC
 * or USDT (the mints the operator named). With an allowlist the operator vouches for every mint it lists.
 */
export function refusedFreezeAuthority(
  config: Config,
  mint: Pick<MintInfo, "address" | "freezeAuthority">,
): string | null {
  const authority = mint.freezeAuthority;
  if (authority === null || config.allowedPaymentMints.length > 0) return null;
  if (mint.address === config.mints.usdc || mint.address === config.mints.usdt) return null;
  if (config.upto.trustedFreezeAuthorities.includes(authority)) return null;
  return (
    `Mint ${mint.address} has a freeze authority ` +
    `(${authority}) this facilitator does not trust: it could freeze a channel's escrow ` +
    "token account, so the channel could never be closed and the rent the facilitator fronts for it would be lost " +
    "(operators: SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES)"
  );
}

export const UPTO_MINT_SCREEN_REASONS = [
  "invalid_upto_svm_payload_mint_extension_not_allowed",
  "invalid_upto_svm_payload_mint_freeze_authority",
] as const satisfies readonly ErrorReason[];

/**
 * The upto builders' mint screen (src/chain/buyer-source.ts), in /verify's order and with its reasons: an extension the
 * payment-channels program refuses, then a freeze authority nobody vouched for.
 */
export function uptoMintScreen(config: Config): (mint: MintInfo) => FacilitatorError | null {
  return (mint) => {
    const extension = refusedChannelMintExtension(mint);
    if (extension !== null) return refused("invalid_upto_svm_payload_mint_extension_not_allowed", extension);
    const frozenRisk = refusedFreezeAuthority(config, mint);
    return frozenRisk === null ? null : refused("invalid_upto_svm_payload_mint_freeze_authority", frozenRisk);
  };
}
