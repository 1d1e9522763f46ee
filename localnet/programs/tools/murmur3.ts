/**
 * MurmurHash3, x86 32-bit variant, seed 0 — the hash the SBF loader uses to name syscalls (the
 * `call` immediate of a syscall is murmur3_32(name)). Written from the published algorithm
 * description: 4-byte little-endian blocks mixed with two multiplicative constants and rotations,
 * a 1-3 byte tail, the length folded in, then the 32-bit finalisation mix ("fmix32").
 */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function rotl32(x: number, r: number): number {
  return ((x << r) | (x >>> (32 - r))) >>> 0;
}

function scramble(k: number): number {
  return Math.imul(rotl32(Math.imul(k, C1) >>> 0, 15), C2) >>> 0;
}

export function murmur3_32(bytes: Uint8Array, seed = 0): number {
  let h = seed >>> 0;
  const blocks = bytes.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i * 4;
    const k = (bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24)) >>> 0;
    h = rotl32(h ^ scramble(k), 13);
    h = (Math.imul(h, 5) + 0xe6546b64) >>> 0;
  }
  const tail = blocks * 4;
  const rest = bytes.length & 3; // the 1 to 3 bytes after the last block, little-endian
  if (rest > 0) {
    let k = bytes[tail]!;
    if (rest > 1) k ^= bytes[tail + 1]! << 8;
    if (rest > 2) k ^= bytes[tail + 2]! << 16;
    h ^= scramble(k >>> 0);
  }
  h = (h ^ bytes.length) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** The loader's name for a syscall symbol: murmur3_32 of its UTF-8 bytes. */
export function syscallHash(name: string): number {
  return murmur3_32(new TextEncoder().encode(name));
}
