/**
 * Memoised `getProgramDerivedAddress`. A PDA is a pure function of (program, seeds), so sharing
 * results across requests in one isolate is safe once derived (only settled promises are shared:
 * src/platform/cache/share-once-fulfilled.ts); it only saves the SHA-256 + on-curve search (usually 1–3
 * rounds) on hot paths such as verifying a payTo. Bounded so an isolate cannot grow without limit;
 * on overflow the oldest entry is dropped (Map keeps insertion order).
 */
import {
  type Address,
  getProgramDerivedAddress,
  type ProgramDerivedAddress,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { shareOnceFulfilled } from "../../platform/cache/share-once-fulfilled";

const PDA_CACHE_MAX_ENTRIES = 2048;

const cache = new Map<string, Promise<ProgramDerivedAddress>>();

const HEX_BY_BYTE: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function cacheKey(programAddress: Address, seeds: readonly ReadonlyUint8Array[]): string {
  let key: string = programAddress;
  for (const seed of seeds) {
    key += ":";
    for (let index = 0; index < seed.length; index++) key += HEX_BY_BYTE[seed[index] ?? 0];
  }
  return key;
}

export function findCachedPda(
  programAddress: Address,
  seeds: readonly ReadonlyUint8Array[],
): Promise<ProgramDerivedAddress> {
  const key = cacheKey(programAddress, seeds);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  // A rejection (invalid seeds or program id) is not remembered.
  return shareOnceFulfilled(getProgramDerivedAddress({ programAddress, seeds: [...seeds] }), (derived) => {
    if (cache.size >= PDA_CACHE_MAX_ENTRIES) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
    cache.set(key, derived);
  });
}

/** For tests that want to observe an uncached derivation. */
export function clearPdaCache(): void {
  cache.clear();
}
