/**
 * Slot, block height and unix time of the local chain. Slots advance with wall-clock time (one per
 * 400 ms, like a cluster) so blockhashes age and expire naturally; tests can jump ahead with
 * `warpSlots` / `warpSeconds` instead of waiting.
 *
 * Block height is kept a fixed distance below the slot (a real cluster has skipped slots) so that
 * code which confuses the two fails here rather than on devnet.
 */
import { performance } from "node:perf_hooks";

export const SLOT_DURATION_MS = 400;
/** Slots per epoch on devnet/mainnet (no warmup). */
export const SLOTS_PER_EPOCH = 432_000n;
/** A devnet-like starting point; any value works, these just look realistic. */
export const DEFAULT_START_SLOT = 380_000_000n;
const DEFAULT_SKIPPED_SLOTS = 12_000_000n;

export interface ChainClockOptions {
  startSlot?: bigint;
  /** Monotonic milliseconds (for slot progress); injectable for tests. */
  monotonicNowMs?: () => number;
  /** Wall-clock milliseconds since the epoch (for unix time). */
  wallNowMs?: () => number;
}

export class ChainClock {
  private readonly startSlot: bigint;
  private readonly startMonotonicMs: number;
  private readonly monotonicNowMs: () => number;
  private readonly wallNowMs: () => number;
  private warpedSlots = 0n;
  private warpedSeconds = 0n;

  constructor(options: ChainClockOptions = {}) {
    this.startSlot = options.startSlot ?? DEFAULT_START_SLOT;
    this.monotonicNowMs = options.monotonicNowMs ?? (() => performance.now());
    this.wallNowMs = options.wallNowMs ?? (() => Date.now());
    this.startMonotonicMs = this.monotonicNowMs();
  }

  slot(): bigint {
    const elapsedSlots = BigInt(Math.floor((this.monotonicNowMs() - this.startMonotonicMs) / SLOT_DURATION_MS));
    return this.startSlot + elapsedSlots + this.warpedSlots;
  }

  blockHeight(): bigint {
    return this.blockHeightOfSlot(this.slot());
  }

  blockHeightOfSlot(slot: bigint): bigint {
    return slot - DEFAULT_SKIPPED_SLOTS;
  }

  unixTimestamp(): bigint {
    return BigInt(Math.floor(this.wallNowMs() / 1000)) + this.warpedSeconds;
  }

  /** Estimated unix time of a past or present slot (getBlockTime). */
  unixTimestampOfSlot(slot: bigint): bigint {
    const slotsAgo = this.slot() - slot;
    return this.unixTimestamp() - (slotsAgo * BigInt(SLOT_DURATION_MS)) / 1000n;
  }

  epoch(slot: bigint = this.slot()): bigint {
    return slot / SLOTS_PER_EPOCH;
  }

  warpSlots(slots: bigint): void {
    if (slots < 0n) throw new RangeError("cannot warp backwards");
    this.warpedSlots += slots;
  }

  /** Seconds the unix time was moved ahead of the wall clock (kept with the chain across restarts). */
  get warpedSecondsTotal(): bigint {
    return this.warpedSeconds;
  }

  warpSeconds(seconds: bigint): void {
    if (seconds < 0n) throw new RangeError("cannot warp backwards");
    this.warpedSeconds += seconds;
  }
}
