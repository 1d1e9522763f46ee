import { type Address, address, type KeyPairSigner } from "@solana/kit";
import * as v from "valibot";
import { ConfigError } from "../../platform/config/config-error";
import { parseFeePayerSecretKey } from "../../platform/config/fee-payer-key";
import { integer, mintList, mintThresholdMap, optionalAddress } from "../../platform/config/fields";
import { type RailConfigInput, railConfigSlice } from "../../platform/config/rail-config";
import type { RailSwitch } from "../../platform/config/rail-switches";
import { UPTO_CLUSTER_DEFAULTS } from "./cluster-defaults";

/** The upto rail's configuration: delegated vouchers, channel bounds, mint screening. */
export interface UptoConfigMembers {
  upto: {
    /** Owner of the payment-channels treasury token accounts Distribute pays dust into. */
    treasuryOwner: Address;
    /** Delegated mode: the voucher key and the bearer token its callers present (both or neither). */
    delegated: { authorizer: KeyPairSigner; settleToken: string } | null;
    minWithdrawDelaySeconds: number;
    maxWithdrawDelaySeconds: number;
    maxChannelLifetimeSeconds: number;
    /** Operator minimum ceilings per mint (raw units); other mints: src/rails/upto/mint-screen.ts. */
    minCeilingRawByMint: Record<string, bigint>;
    /** Open-mint mode: freeze authorities an upto mint may have. */
    trustedFreezeAuthorities: Address[];
    /** The channel caps of the fee payer's exposure budget (src/rails/upto/channel-rent-caps.ts). */
    openCaps: ChannelOpenCaps;
  };
  /** The payment-channels program (PAYMENT_CHANNELS_PROGRAM_ID, else the cluster's, ./cluster-defaults.ts). */
  programs: { paymentChannels: Address };
  // Its program has a publicly confirmed id on every cluster (./cluster-defaults.ts): always configured.
  rails: { upto: RailSwitch };
}

/** How many channels (their rent out) and opens the fee payer fronts per buyer wallet and per payTo. */
export interface ChannelOpenCaps {
  channelsPerPayer: number;
  channelsPerPayTo: number;
  opensPerPayerPerHour: number;
}

export const uptoConfig = railConfigSlice({
  keys: {
    /** Empty: the cluster's program (./cluster-defaults.ts). */
    PAYMENT_CHANNELS_PROGRAM_ID: optionalAddress,
    /**
     * `upto` delegated mode: the key that signs vouchers for sellers that let the facilitator authorize their claims
     * (advertised as extra.receiverAuthorizer), in the FEE_PAYER_SECRET_KEY forms. Empty = sellers sign their own.
     */
    SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY: v.optional(v.string(), ""),
    /**
     * Bearer token a seller's server must send (Authorization header) on delegated deposits and claims; required with
     * the key.
     */
    SVC_UPTO_DELEGATED_SETTLE_TOKEN: v.optional(v.string(), ""),
    /** Bounds of a channel's grace period (`extra.withdrawDelay`, seconds), advertised in /supported. */
    SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS: integer(1, 31_536_000, 60),
    SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS: integer(1, 31_536_000, 86_400),
    /**
     * Owner of the payment-channels treasury token accounts (a build-time constant of the deployed program, which
     * Distribute checks). Empty = the cluster default in ./cluster-defaults.ts, which says where each value comes
     * from.
     */
    SVC_UPTO_TREASURY_OWNER: optionalAddress,
    /**
     * Longest `maxTimeoutSeconds` (and voucher expiry) of an upto payment: how long a channel's rent may be out at most
     * before the keeper may close it.
     */
    SVC_UPTO_MAX_CHANNEL_LIFETIME_SECONDS: integer(60, 31_536_000, 3_600),
    /**
     * JSON map mint → smallest upto ceiling (raw units). Unlisted mints: SVC_MIN_PAYMENT_RAW_BY_MINT's entry for the
     * mint when larger, else 0.01 of a whole token (10^(decimals − 2) raw, the exact rail's documented minimum for a
     * 6-decimal coin).
     */
    SVC_UPTO_MIN_CEILING_RAW_BY_MINT: mintThresholdMap,
    /**
     * Open-mint mode only (SVC_ALLOWED_PAYMENT_MINTS empty): freeze authorities an upto mint may have. Any other
     * (except the cluster's USDC/USDT, named by USDC_MINT/USDT_MINT) could freeze a channel's escrow and lock its rent.
     */
    SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES: mintList,
    /** Live upto channels (their rent out) one buyer wallet may have at once. */
    SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: integer(0, 1_000_000, 10),
    /** Live upto channels paying one payTo at once. */
    SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO: integer(0, 1_000_000, 100),
    /** upto channel opens one buyer wallet may make in a rolling hour (opens refused before the send do not count). */
    SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR: integer(0, 1_000_000, 30),
  },
  envOnlyKeys: ["SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", "SVC_UPTO_DELEGATED_SETTLE_TOKEN"],
  secretKeys: ["SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", "SVC_UPTO_DELEGATED_SETTLE_TOKEN"],
  read: async (input, { cluster, feePayer }): Promise<UptoConfigMembers> => {
    const delegated = await parseUptoDelegation(input, feePayer);
    if (input.SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS > input.SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS) {
      throw new ConfigError(
        "SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS",
        `must not exceed SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS (${input.SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS})`,
      );
    }
    return {
      upto: {
        treasuryOwner: address(input.SVC_UPTO_TREASURY_OWNER || UPTO_CLUSTER_DEFAULTS[cluster].treasuryOwner),
        delegated,
        minWithdrawDelaySeconds: input.SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS,
        maxWithdrawDelaySeconds: input.SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS,
        maxChannelLifetimeSeconds: input.SVC_UPTO_MAX_CHANNEL_LIFETIME_SECONDS,
        minCeilingRawByMint: input.SVC_UPTO_MIN_CEILING_RAW_BY_MINT,
        trustedFreezeAuthorities: input.SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES.map((key) => address(key)),
        openCaps: {
          channelsPerPayer: input.SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER,
          channelsPerPayTo: input.SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO,
          opensPerPayerPerHour: input.SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR,
        },
      },
      programs: {
        paymentChannels: address(input.PAYMENT_CHANNELS_PROGRAM_ID || UPTO_CLUSTER_DEFAULTS[cluster].programId),
      },
      rails: { upto: { enabled: true } },
    };
  },
});

/**
 * The delegated receiver authorizer: a voucher key that is useless without the token that says who may ask it to
 * sign (otherwise a buyer could cancel its own payment with a zero-amount claim), and never the fee payer itself.
 */
async function parseUptoDelegation(
  input: RailConfigInput<typeof uptoConfig.keys>,
  feePayer: KeyPairSigner,
): Promise<UptoConfigMembers["upto"]["delegated"]> {
  const secret = input.SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY.trim();
  const settleToken = input.SVC_UPTO_DELEGATED_SETTLE_TOKEN.trim();
  if (secret === "" && settleToken === "") return null;
  if (secret === "")
    throw new ConfigError(
      "SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY",
      "is required when SVC_UPTO_DELEGATED_SETTLE_TOKEN is set",
    );
  if (settleToken.length < 16)
    throw new ConfigError(
      "SVC_UPTO_DELEGATED_SETTLE_TOKEN",
      "is required (at least 16 characters) when SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY is set",
    );
  let authorizer: KeyPairSigner;
  try {
    authorizer = await parseFeePayerSecretKey(secret);
  } catch (error) {
    throw new ConfigError("SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", (error as Error).message);
  }
  if (authorizer.address === feePayer.address) {
    throw new ConfigError(
      "SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY",
      "must not be the fee payer's key (a voucher key signs money out of channels; keep it apart)",
    );
  }
  return { authorizer, settleToken };
}

// Joins `Config` (declaration merging: the core's configuration type names no rail).
declare module "../../platform/config/rail-config" {
  interface RailConfigMembersByRail {
    upto: UptoConfigMembers;
  }
}
