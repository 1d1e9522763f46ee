/**
 * Steel-style framing shared by UniversalSettle and SLA-Escrow: a discriminator prefix followed by a
 * fixed-size little-endian body. Accounts use an 8-byte prefix (byte 0 = discriminator, bytes 1..7
 * zero); instruction data uses a 1-byte prefix.
 *
 * Instruction data must have the exact length: a funding instruction with extra or missing bytes is not
 * the thing the ABI describes, and accepting it would let a look-alike pass verification. Accounts are
 * read "at least": the layout is a prefix of the account (the ABI's clients, e.g. pr402's keeper, read
 * `data.len() >= header + body`), so a program upgrade that appends fields does not switch a rail off.
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

/** "exactly" for instruction data; "at_least" for accounts (trailing bytes are ignored). */
type LengthRule = "exactly" | "at_least";

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
 * end have the documented size (exactly, or at least it under "at_least") and byte 0 is the
 * discriminator. Bytes 1..7 of an account header are not checked: the programs only compare byte 0.
 */
export function getDiscriminatedDecoder<T>(
  subject: string,
  discriminator: number,
  prefixSizeBytes: number,
  body: FixedSizeDecoder<T>,
  lengthRule: LengthRule = "exactly",
): FixedSizeDecoder<T> {
  const fixedSize = prefixSizeBytes + body.fixedSize;
  return createDecoder({
    fixedSize,
    read(bytes, offset) {
      const length = bytes.length - offset;
      if (!lengthFits(length, fixedSize, lengthRule))
        throw new ProgramDataError(subject, "wrong_length", fixedSize, length, lengthRule);
      const actual = bytes[offset] ?? -1;
      if (actual !== discriminator) {
        throw new ProgramDataError(subject, "wrong_discriminator", discriminator, actual);
      }
      const [value] = body.read(bytes, offset + prefixSizeBytes);
      return [value, offset + fixedSize];
    },
  });
}

function lengthFits(length: number, size: number, rule: LengthRule): boolean {
  return rule === "exactly" ? length === size : length >= size;
}

/** True when `bytes` has `totalSizeBytes` bytes (per the rule) and starts with `discriminator` (no throw). */
function matchesDiscriminatedLayout(
  bytes: ReadonlyUint8Array,
  discriminator: number,
  totalSizeBytes: number,
  lengthRule: LengthRule = "exactly",
): boolean {
  return lengthFits(bytes.length, totalSizeBytes, lengthRule) && bytes[0] === discriminator;
}

/**
 * Builds the safe `decodeX(bytes): X | null` variant of a discriminated decoder, for data that comes
 * from RPC or from an untrusted transaction.
 */
export function createSafeDecode<T>(
  decoder: FixedSizeDecoder<T>,
  discriminator: number,
  lengthRule: LengthRule = "exactly",
): (bytes: ReadonlyUint8Array) => T | null {
  return (bytes) =>
    matchesDiscriminatedLayout(bytes, discriminator, decoder.fixedSize, lengthRule) ? decoder.decode(bytes) : null;
}

export interface DiscriminatedCodecs<T> {
  encoder: FixedSizeEncoder<T>;
  /** Throws ProgramDataError on a wrong length (per the rule) or discriminator. */
  decoder: FixedSizeDecoder<T>;
  codec: FixedSizeCodec<T>;
  /** Returns null on a wrong length (per the rule) or discriminator. */
  safeDecode: (bytes: ReadonlyUint8Array) => T | null;
}

/** The four views of one discriminated layout, built once at module load. */
export function getDiscriminatedCodecs<T>(
  subject: string,
  discriminator: number,
  prefixSizeBytes: number,
  bodyEncoder: FixedSizeEncoder<T>,
  bodyDecoder: FixedSizeDecoder<T>,
  lengthRule: LengthRule = "exactly",
): DiscriminatedCodecs<T> {
  const encoder = getDiscriminatedEncoder(discriminator, prefixSizeBytes, bodyEncoder);
  const decoder = getDiscriminatedDecoder(subject, discriminator, prefixSizeBytes, bodyDecoder, lengthRule);
  return {
    encoder,
    decoder,
    codec: combineCodec(encoder, decoder),
    safeDecode: createSafeDecode(decoder, discriminator, lengthRule),
  };
}
