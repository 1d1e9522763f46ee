/**
 * 32 raw bytes (hashes, payment uids). Unlike kit's `fixEncoderSize(getBytesEncoder(), 32)`, which
 * silently truncates or zero-pads, the encoder rejects any other length: a short hash is a bug, not a
 * value to pad.
 */
import {
  createDecoder,
  createEncoder,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  type ReadonlyUint8Array,
} from "@solana/kit";

const BYTES32_SIZE_BYTES = 32;

let cachedEncoder: FixedSizeEncoder<ReadonlyUint8Array, 32> | undefined;
let cachedDecoder: FixedSizeDecoder<ReadonlyUint8Array, 32> | undefined;

export function getBytes32Encoder(): FixedSizeEncoder<ReadonlyUint8Array, 32> {
  cachedEncoder ??= createEncoder({
    fixedSize: BYTES32_SIZE_BYTES,
    write(value: ReadonlyUint8Array, bytes, offset) {
      if (value.length !== BYTES32_SIZE_BYTES) {
        throw new RangeError(`expected exactly 32 bytes, got ${value.length}`);
      }
      bytes.set(value, offset);
      return offset + BYTES32_SIZE_BYTES;
    },
  });
  return cachedEncoder;
}

/** Returns a copy, so decoded values never alias (and pin) the source buffer. */
export function getBytes32Decoder(): FixedSizeDecoder<ReadonlyUint8Array, 32> {
  cachedDecoder ??= createDecoder({
    fixedSize: BYTES32_SIZE_BYTES,
    read(bytes, offset) {
      const end = offset + BYTES32_SIZE_BYTES;
      if (bytes.length < end) {
        throw new RangeError(`expected 32 bytes at offset ${offset}, only ${bytes.length - offset} left`);
      }
      return [bytes.slice(offset, end), end];
    },
  });
  return cachedDecoder;
}
