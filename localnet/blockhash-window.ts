/**
 * The recent-blockhash window of a cluster. litesvm only accepts its newest blockhash, while a real
 * bank accepts any blockhash issued in the last 150 blocks (MAX_PROCESSING_AGE). litesvm's own check
 * is switched off and this registry decides instead: every blockhash handed out is remembered with
 * the block height it was issued at, and stays valid while the current height ≤ issued + 150.
 */

/** Blocks a blockhash stays usable for (Agave's MAX_PROCESSING_AGE). */
export const MAX_PROCESSING_AGE_BLOCKS = 150n;

export interface IssuedBlockhash {
  blockhash: string;
  slot: bigint;
  blockHeight: bigint;
  /** getLatestBlockhash's lastValidBlockHeight: the last height at which a transaction may land. */
  lastValidBlockHeight: bigint;
}

export class BlockhashWindow {
  private readonly issued = new Map<string, IssuedBlockhash>();
  private newest: IssuedBlockhash | undefined;

  record(blockhash: string, slot: bigint, blockHeight: bigint): IssuedBlockhash {
    const entry = { blockhash, slot, blockHeight, lastValidBlockHeight: blockHeight + MAX_PROCESSING_AGE_BLOCKS };
    this.issued.set(blockhash, entry);
    this.newest = entry;
    return entry;
  }

  latest(): IssuedBlockhash {
    if (this.newest === undefined) throw new Error("no blockhash issued yet");
    return this.newest;
  }

  lookup(blockhash: string): IssuedBlockhash | undefined {
    return this.issued.get(blockhash);
  }

  isValid(blockhash: string, currentBlockHeight: bigint): boolean {
    const entry = this.issued.get(blockhash);
    return entry !== undefined && currentBlockHeight <= entry.lastValidBlockHeight;
  }

  /** Forgets blockhashes that can never be valid again (keeps memory flat on a long-running chain). */
  prune(currentBlockHeight: bigint): void {
    for (const [blockhash, entry] of this.issued) {
      // Map iteration follows insertion order, i.e. issue order: stop at the first live one.
      if (entry.lastValidBlockHeight >= currentBlockHeight || entry === this.newest) break;
      this.issued.delete(blockhash);
    }
  }
}
