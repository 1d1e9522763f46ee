/**
 * Vouchers of the payment-channels program (program source: `instructions/mod.rs` VoucherArgs,
 * `instructions/helpers/voucher.rs`, `instructions/helpers/ed25519/`; docs/payment-channels.md).
 *
 * A voucher is a 50-byte message signed with Ed25519 by the channel's authorized signer:
 * magic 0x56 0x01 ‖ channel id (32) ‖ cumulative amount u64 LE ‖ expires_at i64 LE (0 = never).
 * The program does not verify signatures itself: the transaction carries an Ed25519 precompile
 * instruction immediately before Settle / SettleAndSeal, in the one canonical layout below, and
 * the program reads the signer and message back from the Instructions sysvar.
 */
import {
  type Address,
  address,
  getAddressCodec,
  getI64Codec,
  getStructCodec,
  getU64Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import type { ProgramInstruction } from "../../../chain/program/instruction-accounts";

export const ED25519_PROGRAM_ADDRESS = address("Ed25519SigVerify111111111111111111111111111");
export const VOUCHER_MAGIC = [0x56, 0x01] as const;
export const VOUCHER_MESSAGE_SIZE_BYTES = 50;

/** Offsets of the canonical single-signature precompile data the program accepts. */
export const ED25519_VOUCHER_LAYOUT = {
  publicKeyOffset: 16,
  signatureOffset: 48,
  messageOffset: 112,
  /** The sig/pubkey/message instruction index: u16::MAX = "this instruction". */
  currentInstruction: 0xffff,
  dataSize: 112 + VOUCHER_MESSAGE_SIZE_BYTES,
} as const;

export interface Voucher {
  channelId: Address;
  /** Everything the payee may have settled so far, in base units (not a delta). */
  cumulativeAmount: bigint;
  /** Unix seconds; 0 = no expiry. The program refuses it at now ≥ expiresAt. */
  expiresAt: bigint;
}

const voucherBody = getStructCodec([
  ["channelId", getAddressCodec()],
  ["cumulativeAmount", getU64Codec()],
  ["expiresAt", getI64Codec()],
]);

/** The 50 bytes the authorized signer signs. */
export function encodeVoucherMessage(voucher: Voucher): ReadonlyUint8Array {
  const bytes = new Uint8Array(VOUCHER_MESSAGE_SIZE_BYTES);
  bytes.set(VOUCHER_MAGIC, 0);
  voucherBody.write(voucher, bytes, 2);
  return bytes;
}

/** Null unless the bytes are exactly a voucher message with the magic prefix. */
export function decodeVoucherMessage(bytes: ReadonlyUint8Array): Voucher | null {
  if (bytes.length !== VOUCHER_MESSAGE_SIZE_BYTES || bytes[0] !== VOUCHER_MAGIC[0] || bytes[1] !== VOUCHER_MAGIC[1]) {
    return null;
  }
  return voucherBody.decode(bytes, 2);
}

const addressCodec = getAddressCodec();

/**
 * The Ed25519 precompile instruction that proves `signature` is `signer`'s over `message`, in the
 * layout the program requires (one signature, everything inside this instruction, canonical offsets).
 */
export function getEd25519VoucherInstruction(input: {
  signer: Address;
  /** 64 bytes. */
  signature: ReadonlyUint8Array;
  /** The 50-byte voucher message. */
  message: ReadonlyUint8Array;
}): ProgramInstruction {
  if (input.signature.length !== 64) throw new RangeError(`signature must be 64 bytes, got ${input.signature.length}`);
  if (input.message.length !== VOUCHER_MESSAGE_SIZE_BYTES) {
    throw new RangeError(`voucher message must be ${VOUCHER_MESSAGE_SIZE_BYTES} bytes, got ${input.message.length}`);
  }
  const layout = ED25519_VOUCHER_LAYOUT;
  const data = new Uint8Array(layout.dataSize);
  const view = new DataView(data.buffer);
  data[0] = 1; // one signature
  data[1] = 0; // padding
  view.setUint16(2, layout.signatureOffset, true);
  view.setUint16(4, layout.currentInstruction, true);
  view.setUint16(6, layout.publicKeyOffset, true);
  view.setUint16(8, layout.currentInstruction, true);
  view.setUint16(10, layout.messageOffset, true);
  view.setUint16(12, VOUCHER_MESSAGE_SIZE_BYTES, true);
  view.setUint16(14, layout.currentInstruction, true);
  data.set(addressCodec.encode(input.signer), layout.publicKeyOffset);
  data.set(input.signature, layout.signatureOffset);
  data.set(input.message, layout.messageOffset);
  return { programAddress: ED25519_PROGRAM_ADDRESS, accounts: [], data };
}
