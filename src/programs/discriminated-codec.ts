/**
 * Steel-style framing shared by UniversalSettle and SLA-Escrow: a discriminator prefix followed by a
 * fixed-size little-endian body. Accounts use an 8-byte prefix (byte 0 = discriminator, bytes 1..7
 * zero); instruction data uses a 1-byte prefix.
 *
 * The decoders demand the exact total length: a program account or instruction with extra or missing
 * bytes is not the thing the ABI describes, and accepting it would let a look-alike pass verification.
 */
import {
  combineCodec,
  createDecoder,
  createEncoder,
  type FixedSizeCodec,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { ProgramDataError } from "./program-data-error";

export const ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES = 8;
export const INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES = 1;

/** Writes `[discriminator, 0 × (prefixSize − 1)] ‖ body`. */
export function getDiscriminatedEncoder<T>(
  discriminator: number,
  prefixSizeBytes: number,
  body: FixedSizeEncoder<T>,
): FixedSizeEncoder<T> {
  const fixedSize = prefixSizeBytes + body.fixedSize;
  return createEncoder({
    fixedSize,
    write(value: T, bytes, offset) {
      // Zero the whole span first so padding is zero even when writing into a reused buffer.
      bytes.fill(0, offset, offset + fixedSize);
      bytes[offset] = discriminator;
      body.write(value, bytes, offset + prefixSizeBytes);
      return offset + fixedSize;
    },
  });
}

/**
 * Reads `body` after the prefix, throwing {@link ProgramDataError} unless the bytes from `offset` to the
 * end are exactly the documented size and byte 0 is the discriminator. Bytes 1..7 of an account
 * header are not checked: the programs themselves only compare byte 0.
 */
export function getDiscriminatedDecoder<T>(
  subject: string,
  discriminator: number,
  prefixSizeBytes: number,
  body: FixedSizeDecoder<T>,
): FixedSizeDecoder<T> {
  const fixedSize = prefixSizeBytes + body.fixedSize;
  return createDecoder({
    fixedSize,
    read(bytes, offset) {
      const length = bytes.length - offset;
      if (length !== fixedSize) throw new ProgramDataError(subject, "wrong_length", fixedSize, length);
      const actual = bytes[offset] ?? -1;
      if (actual !== discriminator) {
        throw new ProgramDataError(subject, "wrong_discriminator", discriminator, actual);
      }
      const [value] = body.read(bytes, offset + prefixSizeBytes);
      return [value, offset + fixedSize];
    },
  });
}

/** True when `bytes` has exactly `totalSizeBytes` bytes and starts with `discriminator` (no throw). */
export function matchesDiscriminatedLayout(
  bytes: ReadonlyUint8Array,
  discriminator: number,
  totalSizeBytes: number,
): boolean {
  return bytes.length === totalSizeBytes && bytes[0] === discriminator;
}

/**
 * Builds the safe `decodeX(bytes): X | null` variant of a discriminated decoder, for data that comes
 * from RPC or from an untrusted transaction.
 */
export function createSafeDecode<T>(
  decoder: FixedSizeDecoder<T>,
  discriminator: number,
): (bytes: ReadonlyUint8Array) => T | null {
  return (bytes) =>
    matchesDiscriminatedLayout(bytes, discriminator, decoder.fixedSize) ? decoder.decode(bytes) : null;
}

export interface DiscriminatedCodecs<T> {
  encoder: FixedSizeEncoder<T>;
  /** Throws ProgramDataError on a wrong length or discriminator. */
  decoder: FixedSizeDecoder<T>;
  codec: FixedSizeCodec<T>;
  /** Returns null on a wrong length or discriminator. */
  safeDecode: (bytes: ReadonlyUint8Array) => T | null;
}

/** The four views of one discriminated layout, built once at module load. */
export function getDiscriminatedCodecs<T>(
  subject: string,
  discriminator: number,
  prefixSizeBytes: number,
  bodyEncoder: FixedSizeEncoder<T>,
  bodyDecoder: FixedSizeDecoder<T>,
): DiscriminatedCodecs<T> {
  const encoder = getDiscriminatedEncoder(discriminator, prefixSizeBytes, bodyEncoder);
  const decoder = getDiscriminatedDecoder(subject, discriminator, prefixSizeBytes, bodyDecoder);
  return {
    encoder,
    decoder,
    codec: combineCodec(encoder, decoder),
    safeDecode: createSafeDecode(decoder, discriminator),
  };
}
