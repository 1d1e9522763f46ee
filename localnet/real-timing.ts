/**
 * TEST-ONLY (benchmark): production-shaped timing for the local chain, which otherwise confirms a transaction the
 * moment it lands and answers RPC in a fraction of a millisecond. With it, a landed transaction reports "processed"
 * until a slot time (plus or minus jitter) has passed, and every HTTP request and WebSocket message waits the
 * configured one-way latency on its way in and again on its way out, as if the RPC provider were across the network.
 *
 * What it does not model: account reads and simulations see a landed transaction's effects at once (a real node's
 * "processed" state does too, its "confirmed" state only later), and blocks are not produced in slot-aligned batches.
 */

export interface RealTiming {
  /** Median time from landing to "confirmed". */
  slotMs: number;
  /** Uniform spread around `slotMs` (confirmation after slotMs ± jitterMs). */
  jitterMs: number;
  /** Added on the way in and again on the way out of every request and WebSocket message. */
  rpcLatencyMsEachWay: number;
}

export const DEFAULT_REAL_TIMING: RealTiming = { slotMs: 400, jitterMs: 100, rpcLatencyMsEachWay: 40 };

/** How long after landing this transaction becomes "confirmed" (0 without real timing). */
export function confirmationDelayMs(timing: RealTiming | null): number {
  if (timing === null) return 0;
  return Math.max(0, timing.slotMs + (Math.random() * 2 - 1) * timing.jitterMs);
}

export function oneWayDelay(timing: RealTiming | null): Promise<void> | null {
  if (timing === null || timing.rpcLatencyMsEachWay <= 0) return null;
  return new Promise((resolve) => setTimeout(resolve, timing.rpcLatencyMsEachWay));
}

/** Reads LOCALNET_SLOT_MS, LOCALNET_SLOT_JITTER_MS and LOCALNET_RPC_LATENCY_MS; null when none is set. */
export function realTimingFromEnv(env: NodeJS.ProcessEnv): RealTiming | null {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 60_000) throw new Error(`invalid ${name}: ${raw}`);
    return value;
  };
  if (
    ![env.LOCALNET_SLOT_MS, env.LOCALNET_SLOT_JITTER_MS, env.LOCALNET_RPC_LATENCY_MS].some(
      (v) => v !== undefined && v !== "",
    )
  )
    return null;
  return {
    slotMs: read("LOCALNET_SLOT_MS", DEFAULT_REAL_TIMING.slotMs),
    jitterMs: read("LOCALNET_SLOT_JITTER_MS", DEFAULT_REAL_TIMING.jitterMs),
    rpcLatencyMsEachWay: read("LOCALNET_RPC_LATENCY_MS", DEFAULT_REAL_TIMING.rpcLatencyMsEachWay),
  };
}
