/**
 * The payment-channels Channel account (program source: `program/payment_channels/src/state/channel.rs`,
 * `state/common.rs`; docs/payment-channels.md): 256 bytes, byte 0 = account discriminator 1,
 * byte 1 = layout version 1. Little-endian integers, no padding.
 *
 * The decoders check the bytes, not the policy: status values and watermarks are returned as read, and
 * what a rail accepts (an open channel of the expected parties) is for the rail to decide.
 */
import {
  type Address,
  combineCodec,
  createDecoder,
  createEncoder,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  getAddressCodec,
  getI64Codec,
  getStructCodec,
  getU8Codec,
  getU32Codec,
  getU64Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getBytes32Decoder, getBytes32Encoder } from "../../../chain/program/bytes32-codec";
import { ProgramDataError } from "../../../chain/program/program-data-error";

export const CHANNEL_ACCOUNT_DISCRIMINATOR = 1;
export const CHANNEL_ACCOUNT_VERSION = 1;
export const CHANNEL_ACCOUNT_SIZE_BYTES = 256;

/** Channel.status (ChannelStatus in channel.rs). Note SEALED = 1, CLOSING = 2. */
export const CHANNEL_STATUS = {
  OPEN: 0,
  SEALED: 1,
  CLOSING: 2,
  DISTRIBUTED: 3,
} as const;
export type ChannelStatus = (typeof CHANNEL_STATUS)[keyof typeof CHANNEL_STATUS];

/** Byte offsets used by getProgramAccounts filters (e.g. channels whose rent a key paid). */
export const CHANNEL_OFFSETS = {
  status: 3,
  payer: 88,
  payee: 120,
  authorizedSigner: 152,
  mint: 184,
  rentPayer: 216,
  openSlot: 248,
} as const;

export interface Channel {
  version: number;
  bump: number;
  /** Raw byte; see CHANNEL_STATUS. */
  status: number;
  salt: bigint;
  /** Escrowed amount (base units): the ceiling of `settled`. */
  deposit: bigint;
  /** Cumulative amount accepted from vouchers. */
  settled: bigint;
  /** Part of `settled` already paid out by Distribute. */
  payoutWatermark: bigint;
  /** Unix seconds RequestClose started the grace period; 0 outside CLOSING. */
  closureStartedAt: bigint;
  /** Unix seconds of WithdrawPayer; 0 = not withdrawn. */
  payerWithdrawnAt: bigint;
  /** Seconds between RequestClose and a permissionless Seal. */
  gracePeriod: number;
  /** sha256 of the distribution preimage committed at Open (32 bytes). */
  distributionHash: ReadonlyUint8Array;
  payer: Address;
  payee: Address;
  authorizedSigner: Address;
  mint: Address;
  rentPayer: Address;
  openSlot: bigint;
}

const bytes32 = combineCodec(getBytes32Encoder(), getBytes32Decoder());

/** Everything after the discriminator byte. */
const channelBody = getStructCodec([
  ["version", getU8Codec()],
  ["bump", getU8Codec()],
  ["status", getU8Codec()],
  ["salt", getU64Codec()],
  ["deposit", getU64Codec()],
  ["settled", getU64Codec()],
  ["payoutWatermark", getU64Codec()],
  ["closureStartedAt", getI64Codec()],
  ["payerWithdrawnAt", getI64Codec()],
  ["gracePeriod", getU32Codec()],
  ["distributionHash", bytes32],
  ["payer", getAddressCodec()],
  ["payee", getAddressCodec()],
  ["authorizedSigner", getAddressCodec()],
  ["mint", getAddressCodec()],
  ["rentPayer", getAddressCodec()],
  ["openSlot", getU64Codec()],
]);

export function getChannelEncoder(): FixedSizeEncoder<Channel> {
  return createEncoder({
    fixedSize: CHANNEL_ACCOUNT_SIZE_BYTES,
    write(value: Channel, bytes, offset) {
      bytes[offset] = CHANNEL_ACCOUNT_DISCRIMINATOR;
      return channelBody.write(value, bytes, offset + 1);
    },
  });
}

/** Throws ProgramDataError unless the bytes are exactly 256 long and start with discriminator 1. */
export function getChannelDecoder(): FixedSizeDecoder<Channel> {
  return createDecoder({
    fixedSize: CHANNEL_ACCOUNT_SIZE_BYTES,
    read(bytes, offset) {
      const length = bytes.length - offset;
      if (length !== CHANNEL_ACCOUNT_SIZE_BYTES) {
        throw new ProgramDataError("Channel account", "wrong_length", CHANNEL_ACCOUNT_SIZE_BYTES, length);
      }
      const discriminator = bytes[offset] ?? -1;
      if (discriminator !== CHANNEL_ACCOUNT_DISCRIMINATOR) {
        throw new ProgramDataError(
          "Channel account",
          "wrong_discriminator",
          CHANNEL_ACCOUNT_DISCRIMINATOR,
          discriminator,
        );
      }
      const [value] = channelBody.read(bytes, offset + 1);
      return [value, offset + CHANNEL_ACCOUNT_SIZE_BYTES];
    },
  });
}

const channelDecoder = getChannelDecoder();

/**
 * RPC data → Channel, or null when it is not a Channel of the layout version this code knows (the
 * program itself refuses other versions with UnsupportedChannelVersion).
 */
export function decodeChannel(bytes: ReadonlyUint8Array): Channel | null {
  if (bytes.length !== CHANNEL_ACCOUNT_SIZE_BYTES || bytes[0] !== CHANNEL_ACCOUNT_DISCRIMINATOR) return null;
  const channel = channelDecoder.decode(bytes);
  return channel.version === CHANNEL_ACCOUNT_VERSION ? channel : null;
}
