/**
 * Small helpers for writing expected byte layouts by hand in the program tests. They only build
 * byte arrays; the expected little-endian numbers are written out literally in each test.
 */

import { createHash } from "node:crypto";
import { Point } from "@noble/ed25519";
import { type Address, getAddressDecoder } from "@solana/kit";

/** 32 bytes counting up from `first` (first, first+1, …, first+31). */
export function seq32(first: number): number[] {
  return Array.from({ length: 32 }, (_, index) => first + index);
}

/** 32 copies of `byte`. */
export function fill32(byte: number): number[] {
  return new Array<number>(32).fill(byte);
}

export function zeros(count: number): number[] {
  return new Array<number>(count).fill(0);
}

/** Concatenates hand-written segments into one Uint8Array. */
export function bytes(...segments: (readonly number[] | Uint8Array)[]): Uint8Array {
  const flat: number[] = [];
  for (const segment of segments) flat.push(...segment);
  return Uint8Array.from(flat);
}

const addressDecoder = getAddressDecoder();

/** The base58 Address of 32 raw bytes (kit's codec, not code under test). */
export function addressFromBytes(raw: readonly number[] | Uint8Array): Address {
  return addressDecoder.decode(Uint8Array.from(raw));
}

/**
 * PDA derivation written from the Solana definition, independent of kit and of the code under test:
 * for bump 255 down to 1, sha256(seeds ‖ [bump] ‖ programId ‖ "ProgramDerivedAddress"), first hash
 * that is NOT an ed25519 point wins. The curve check uses @noble/ed25519.
 */
export function independentPda(programId: Uint8Array, seeds: readonly Uint8Array[]): [Uint8Array, number] {
  const marker = new TextEncoder().encode("ProgramDerivedAddress");
  for (let bump = 255; bump > 0; bump--) {
    const hash = createHash("sha256");
    for (const seed of seeds) hash.update(seed);
    hash.update(Uint8Array.of(bump));
    hash.update(programId);
    hash.update(marker);
    const candidate = new Uint8Array(hash.digest());
    let onCurve = true;
    try {
      Point.fromBytes(candidate, true);
    } catch {
      onCurve = false;
    }
    if (!onCurve) return [candidate, bump];
  }
  throw new Error("no viable bump");
}
