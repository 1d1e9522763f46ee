/**
 * UniversalSettle account codecs (docs/universal-settle-abi.md "Account layouts"). On chain each account
 * is the 8-byte Steel header (byte 0 = discriminator) followed by the `repr(C)` body. Encoders exist
 * for tests and the local stand-in program; the facilitator only decodes.
 *
 * `getXDecoder().decode` throws ProgramDataError on a wrong length or discriminator; `decodeX` returns
 * null instead and is the one to use on RPC data.
 */
import {
  type Address,
  combineCodec,
  type FixedSizeCodec,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  getAddressDecoder,
  getAddressEncoder,
  getBooleanDecoder,
  getBooleanEncoder,
  getI64Decoder,
  getI64Encoder,
  getStructDecoder,
  getStructEncoder,
  getU8Decoder,
  getU8Encoder,
  getU16Decoder,
  getU16Encoder,
  getU64Decoder,
  getU64Encoder,
  padRightDecoder,
  padRightEncoder,
  type ReadonlyUint8Array,
} from "@solana/kit";
import {
  ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  createSafeDecode,
  getDiscriminatedDecoder,
  getDiscriminatedEncoder,
} from "../../../chain/program/discriminated-codec";

/** Byte 0 of every UniversalSettle account. */
const UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR = {
  CONFIG: 0,
  SPLIT_VAULT: 1,
  AUTHORITY_TRANSFER: 2,
  FEE_SHARD: 3,
} as const;

export const SPLIT_VAULT_ACCOUNT_SIZE = 64;
export const UNIVERSAL_SETTLE_CONFIG_ACCOUNT_SIZE = 120;

// ---------------------------------------------------------------------------------------------------
// SplitVault

export interface SplitVault {
  /** @0 the seller wallet the vault pays out to. */
  seller: Address;
  /** @32 provisioning cost already recovered from SOL payouts. */
  solRecoveredLamports: bigint;
  /** @40 provisioning cost already recovered from SPL payouts, raw token units. */
  splRecoveredRaw: bigint;
  /** @48 true once recovery is complete (byte == 1). */
  isProvisioned: boolean;
  /** @49 the vault PDA's bump. */
  bump: number;
  /** @50 created and paid for by the seller itself: discounted fee, no recovery (byte == 1). */
  isSovereign: boolean;
  // @51 5 bytes padding
}

const splitVaultBodyEncoder = getStructEncoder([
  ["seller", getAddressEncoder()],
  ["solRecoveredLamports", getU64Encoder()],
  ["splRecoveredRaw", getU64Encoder()],
  ["isProvisioned", getBooleanEncoder()],
  ["bump", getU8Encoder()],
  ["isSovereign", padRightEncoder(getBooleanEncoder(), 5)],
]);
const splitVaultBodyDecoder = getStructDecoder([
  ["seller", getAddressDecoder()],
  ["solRecoveredLamports", getU64Decoder()],
  ["splRecoveredRaw", getU64Decoder()],
  ["isProvisioned", getBooleanDecoder()],
  ["bump", getU8Decoder()],
  ["isSovereign", padRightDecoder(getBooleanDecoder(), 5)],
]);

const splitVaultEncoder: FixedSizeEncoder<SplitVault> = getDiscriminatedEncoder(
  UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR.SPLIT_VAULT,
  ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  splitVaultBodyEncoder,
);
const splitVaultDecoder: FixedSizeDecoder<SplitVault> = getDiscriminatedDecoder(
  "SplitVault account",
  UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR.SPLIT_VAULT,
  ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  splitVaultBodyDecoder,
  "at_least",
);
const splitVaultCodec: FixedSizeCodec<SplitVault> = combineCodec(splitVaultEncoder, splitVaultDecoder);

export function getSplitVaultEncoder(): FixedSizeEncoder<SplitVault> {
  return splitVaultEncoder;
}
export function getSplitVaultDecoder(): FixedSizeDecoder<SplitVault> {
  return splitVaultDecoder;
}
export function getSplitVaultCodec(): FixedSizeCodec<SplitVault> {
  return splitVaultCodec;
}
/** Null unless the data has at least the 64-byte layout (later bytes ignored) with discriminator 1. */
export const decodeSplitVault: (data: ReadonlyUint8Array) => SplitVault | null = createSafeDecode(
  splitVaultDecoder,
  UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR.SPLIT_VAULT,
  "at_least",
);

// ---------------------------------------------------------------------------------------------------
// Config

export interface UniversalSettleConfig {
  /** @0 */
  authority: Address;
  /** @32 receives fees (itself, or its ATA for SPL) when fee sharding is off. */
  feeDestination: Address;
  /** @64 i64 unix seconds. */
  updatedAtUnixSeconds: bigint;
  /** @72 minimum fee per SPL sweep, raw token units. */
  minFeeAmountRaw: bigint;
  /** @80 minimum fee per SOL sweep. */
  minFeeAmountLamports: bigint;
  /** @88 SOL recovery target of a facilitator-provisioned vault (10,000,000 by default). */
  provisioningFeeLamports: bigint;
  /** @96 SPL recovery target, raw token units (1,000,000 by default). */
  provisioningFeeRaw: bigint;
  /** @104 standard fee rate (100 by default). */
  feeBps: number;
  /** @106 fee rate of sovereign vaults (90 by default). */
  discountedFeeBps: number;
  /** @108 fees go to fee shards instead of feeDestination (byte == 1). */
  useFeeShard: boolean;
  /** @109 number of fee shards (u8). */
  shardCount: number;
  // @110 2 bytes padding
}

const configBodyEncoder = getStructEncoder([
  ["authority", getAddressEncoder()],
  ["feeDestination", getAddressEncoder()],
  ["updatedAtUnixSeconds", getI64Encoder()],
  ["minFeeAmountRaw", getU64Encoder()],
  ["minFeeAmountLamports", getU64Encoder()],
  ["provisioningFeeLamports", getU64Encoder()],
  ["provisioningFeeRaw", getU64Encoder()],
  ["feeBps", getU16Encoder()],
  ["discountedFeeBps", getU16Encoder()],
  ["useFeeShard", getBooleanEncoder()],
  ["shardCount", padRightEncoder(getU8Encoder(), 2)],
]);
const configBodyDecoder = getStructDecoder([
  ["authority", getAddressDecoder()],
  ["feeDestination", getAddressDecoder()],
  ["updatedAtUnixSeconds", getI64Decoder()],
  ["minFeeAmountRaw", getU64Decoder()],
  ["minFeeAmountLamports", getU64Decoder()],
  ["provisioningFeeLamports", getU64Decoder()],
  ["provisioningFeeRaw", getU64Decoder()],
  ["feeBps", getU16Decoder()],
  ["discountedFeeBps", getU16Decoder()],
  ["useFeeShard", getBooleanDecoder()],
  ["shardCount", padRightDecoder(getU8Decoder(), 2)],
]);

const configEncoder: FixedSizeEncoder<UniversalSettleConfig> = getDiscriminatedEncoder(
  UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR.CONFIG,
  ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  configBodyEncoder,
);
const configDecoder: FixedSizeDecoder<UniversalSettleConfig> = getDiscriminatedDecoder(
  "UniversalSettle Config account",
  UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR.CONFIG,
  ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  configBodyDecoder,
  "at_least",
);

export function getUniversalSettleConfigEncoder(): FixedSizeEncoder<UniversalSettleConfig> {
  return configEncoder;
}
export function getUniversalSettleConfigDecoder(): FixedSizeDecoder<UniversalSettleConfig> {
  return configDecoder;
}
/** Null unless the data has at least the 120-byte layout (later bytes ignored) with discriminator 0. */
export const decodeUniversalSettleConfig: (data: ReadonlyUint8Array) => UniversalSettleConfig | null = createSafeDecode(
  configDecoder,
  UNIVERSAL_SETTLE_ACCOUNT_DISCRIMINATOR.CONFIG,
  "at_least",
);

/** The fee rate a vault pays: the discounted rate for sovereign vaults, else the standard one. */
export function feeBpsForVault(config: UniversalSettleConfig, vault: SplitVault): number {
  return vault.isSovereign ? config.discountedFeeBps : config.feeBps;
}
