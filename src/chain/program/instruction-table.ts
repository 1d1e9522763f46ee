/**
 * The one style of every program client here: each instruction is described ONCE as data (a table entry
 * with its discriminator, its body codec and its ordered account slots per variant), and the data codec
 * and the kit Instruction builder are derived from that entry.
 *
 * Data is `[discriminator] ‖ body` with nothing after it. A fixed-size body (SLA-Escrow, UniversalSettle)
 * goes through the Steel framing of ./discriminated-codec.ts; a variable-size body (payment-channels'
 * Borsh vectors) is read to its end and must end exactly where the data ends.
 */
import { type AccountMeta, type Address, type Codec, isFixedSize, type ReadonlyUint8Array } from "@solana/kit";
import {
  createSafeDecode,
  getDiscriminatedDecoder,
  getDiscriminatedEncoder,
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
} from "./discriminated-codec";
import { type AccountSlot, accountMetas, type ProgramInstruction } from "./instruction-accounts";
import { ProgramDataError } from "./program-data-error";

/** Account lists per variant: "sol" / "spl" where the two differ, "only" where there is one. */
export type AccountLayouts = { readonly [variant: string]: readonly AccountSlot[] };

/**
 * Data codec of one instruction: byte 0 = discriminator, then the body, and nothing after it. Encoding takes
 * what the body's kit encoder takes (u64 fields: number | bigint); decoding returns what it decodes.
 */
export interface InstructionDataCodec<TFrom, TTo extends TFrom = TFrom> {
  encode(value: TFrom): ReadonlyUint8Array;
  /** Throws ProgramDataError on a wrong discriminator, a short body or trailing bytes. */
  decode(bytes: ReadonlyUint8Array): TTo;
  /** Null instead of throwing (data from an untrusted transaction). */
  safeDecode(bytes: ReadonlyUint8Array): TTo | null;
}

export interface InstructionSpec<TFrom, TTo extends TFrom, TLayouts extends AccountLayouts = AccountLayouts> {
  data: InstructionDataCodec<TFrom, TTo>;
  accounts: TLayouts;
}

/** One table entry. `name` only labels decoding errors ("FundPayment instruction data: …"). */
export function instructionSpec<TFrom, TTo extends TFrom, TLayouts extends AccountLayouts>(
  name: string,
  discriminator: number,
  body: Codec<TFrom, TTo>,
  accounts: TLayouts,
): InstructionSpec<TFrom, TTo, TLayouts> {
  return { data: instructionDataCodec(`${name} instruction data`, discriminator, body), accounts };
}

export function instructionDataCodec<TFrom, TTo extends TFrom>(
  subject: string,
  discriminator: number,
  body: Codec<TFrom, TTo>,
): InstructionDataCodec<TFrom, TTo> {
  const prefix = INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES;
  if (isFixedSize(body)) {
    const encoder = getDiscriminatedEncoder(discriminator, prefix, body);
    const decoder = getDiscriminatedDecoder(subject, discriminator, prefix, body);
    return {
      encode: (value) => encoder.encode(value),
      decode: (bytes) => decoder.decode(bytes),
      safeDecode: createSafeDecode(decoder, discriminator),
    };
  }
  const decode = (bytes: ReadonlyUint8Array): TTo => {
    const actual = bytes[0] ?? -1;
    if (actual !== discriminator) throw new ProgramDataError(subject, "wrong_discriminator", discriminator, actual);
    let value: TTo;
    let end: number;
    try {
      [value, end] = body.read(bytes, prefix);
    } catch {
      throw new ProgramDataError(subject, "wrong_length", bytes.length + 1, bytes.length);
    }
    if (end !== bytes.length) throw new ProgramDataError(subject, "wrong_length", end, bytes.length);
    return value;
  };
  return {
    encode(value) {
      const encoded = body.encode(value);
      const bytes = new Uint8Array(prefix + encoded.length);
      bytes[0] = discriminator;
      bytes.set(encoded, prefix);
      return bytes;
    },
    decode,
    safeDecode(bytes) {
      try {
        return decode(bytes);
      } catch (error) {
        if (error instanceof ProgramDataError) return null;
        throw error;
      }
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: each entry has its own data type, which `tableBuilder` infers from `T`
type Table = Record<string, InstructionSpec<any, any, AccountLayouts>>;

/**
 * The builder of a table: each slot reads `input[name]` unless it has a fixed address, the body encoder reads
 * its fields from `data`, and `extra` metas (optional tails, remaining accounts) follow the variant's list.
 */
export function tableBuilder<T extends Table>(table: T) {
  return function build<K extends keyof T & string>(
    key: K,
    variant: keyof T[K]["accounts"] & string,
    input: { programId: Address } & object,
    data: Parameters<T[K]["data"]["encode"]>[0],
    extra: readonly AccountMeta[] = [],
  ): ProgramInstruction {
    const { data: codec, accounts } = table[key] as unknown as InstructionSpec<unknown, unknown>;
    const layout = accounts[variant];
    if (layout === undefined) throw new TypeError(`no "${variant}" account list for ${key}`);
    const metas = accountMetas(layout, input);
    return {
      programAddress: input.programId,
      accounts: extra.length === 0 ? metas : [...metas, ...extra],
      data: codec.encode(data),
    };
  };
}
