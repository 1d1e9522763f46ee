/**
 * Smoke test of `npm run bench` (bench/bench.ts) with a tiny n, so the benchmark cannot rot: the real Worker under
 * Miniflare as npm start serves it, the official reference facilitator in its own Node process, the local chain, official-client payments.
 * Asserts the table's shape and that both sides answered every call validly; the numbers themselves are not checked
 * (a test is no place for timing).
 */
import { describe, expect, it } from "vitest";
import { runBench } from "../../bench/bench";

describe("npm run bench (smoke, tiny n)", () => {
  it("prints ours, the reference and the ratios, with every verify and settle valid on both sides", async () => {
    const result = await runBench({ verifyPayments: { c1: 2, c8: 8, c32: 8 }, rounds: 1, settles: 2, simulations: 4, buyersPerSide: 2, warmupVerifies: 8 });

    expect(result.rows.map((row) => row[0])).toEqual([
      "/verify req/s, c=1",
      "/verify req/s, c=8",
      "/verify req/s, c=32",
      "/verify p99 ms, c=32",
      "/settle median ms (2 sequential)",
      "/settle own time ms (mean latency - chain's service time)",
      "facilitator CPU ms per /verify (OS accounting)",
      "facilitator CPU ms per /settle (OS accounting)",
      "chain's own simulateTransaction ceiling, c=8 (req/s)",
    ]);
    for (const row of result.rows.slice(0, 5)) {
      expect(Number(row[1]), row[0]).toBeGreaterThan(0);
      expect(Number(row[2]), row[0]).toBeGreaterThan(0);
      expect(row[3], row[0]).toMatch(/^\d+\.\d\dx$/);
    }
    // Own time of a settle: the chain's service time is known, and less than the whole settle took.
    for (const side of [result.ours, result.reference]) {
      expect(side.settle.chainServiceMs).toBeGreaterThan(0);
      expect(side.settle.chainServiceMs / side.settle.count).toBeLessThan(Math.max(...side.settle.latenciesMs));
    }
    // CPU per call from /proc: both facilitators' processes are found and spent some CPU on the verifies.
    expect(Number(result.rows[6]![1]), "ours: CPU per verify").toBeGreaterThan(0);
    expect(Number(result.rows[6]![2]), "reference: CPU per verify").toBeGreaterThan(0);
    expect(Number(result.rows[8]![1])).toBeGreaterThan(0);
    for (const side of [result.ours, result.reference]) {
      for (const phases of [side.verify.c1, side.verify.c8, side.verify.c32]) {
        expect(phases).toHaveLength(1);
        expect(phases[0]!.failures).toBe(0);
      }
      expect(side.settle.count).toBe(2);
      expect(side.settle.failures).toBe(0);
    }
    // The settle timeline: each side's settles laid over the chain's request log, the send among the chain's calls.
    for (const timeline of [result.settleTimelines.ours, result.settleTimelines.reference]) {
      expect(timeline).not.toBeNull();
      expect(timeline!.of).toBe(2);
      expect(timeline!.settles).toBeGreaterThanOrEqual(1);
      const labels = timeline!.segments.map((segment) => segment.label);
      expect(labels.filter((label) => label !== "facilitator")).toContain("sendTransaction");
      expect(labels[0]).toBe("facilitator");
      expect(labels.at(-1)).toBe("facilitator");
      for (const segment of timeline!.segments.filter((s) => s.label !== "facilitator")) expect(segment.medianMs).toBeGreaterThan(0);
    }
    expect(result.simulateCeiling.failures).toBe(0);
    expect(result.table).toContain("reference");
  }, 120_000);
});
