/** Load generation and statistics for the benchmark: a bounded worker pool, percentiles, table formatting. */

export interface PhaseResult {
  count: number;
  failures: number;
  /** First few failure reasons (for the report). */
  failureSamples: string[];
  wallMs: number;
  throughputPerSecond: number;
  latenciesMs: number[];
  /**
   * Each call's start and end as epoch milliseconds (sub-ms precision), comparable with the local chain's request log.
   */
  callSpansMs: [number, number][];
}

const epochNowMs = () => performance.timeOrigin + performance.now();

/**
 * Runs `task` once per item with at most `concurrency` in flight, timing each call. A task returns null on
 * success or a failure reason; a thrown error counts as a failure too.
 */
export async function runPhase<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<string | null>,
): Promise<PhaseResult> {
  const latenciesMs: number[] = new Array(items.length);
  const callSpansMs: [number, number][] = new Array(items.length);
  const failureSamples: string[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (;;) {
      const index = next++;
      if (index >= items.length) return;
      const t0 = epochNowMs();
      let failure: string | null;
      try {
        failure = await task(items[index]!);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      const t1 = epochNowMs();
      latenciesMs[index] = t1 - t0;
      callSpansMs[index] = [t0, t1];
      if (failure !== null) {
        failures++;
        if (failureSamples.length < 3) failureSamples.push(failure.slice(0, 200));
      }
    }
  });
  await Promise.all(lanes);
  const wallMs = performance.now() - started;
  return {
    count: items.length,
    failures,
    failureSamples,
    wallMs,
    throughputPerSecond: (items.length / wallMs) * 1000,
    latenciesMs,
    callSpansMs,
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Left column text, then right-aligned columns. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export const fmt = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
