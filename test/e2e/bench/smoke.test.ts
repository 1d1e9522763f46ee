/**
 * Smoke test of `npm run bench` (bench/bench.ts) with a tiny n, so the benchmark cannot rot: the real Worker under
 * Miniflare as npm start serves it, the official reference facilitator in its own Node process, the local chain,
 * official-client payments. Asserts the table's shape and that both sides answered every call validly; the numbers
 * themselves are not checked (a test is no place for timing).
 */
import { describe, expect, it } from "vitest";
import { runBench } from "../../../bench/bench";
import { runRealTimingBench } from "../../../bench/real-timing";
import { straceAvailable } from "../../../bench/syscall-count";

// Each run is a fixed amount of work (two Workers, the reference, the chain, a few hundred calls) whose time is the
// machine's speed: about a minute on a quiet 2-core machine, four to five times that beside other test runs (load
// 8-17 took 271 s for the two). The limit only ends a hang.
const BENCH_LIMIT_MS = 600_000;

describe("npm run bench (smoke, tiny n)", () => {
  it(
    "prints ours, the reference and the ratios, with every verify and settle valid on both sides",
    async () => {
      const result = await runBench({
        verifyPayments: { c1: 2, c8: 8, c32: 8 },
        rounds: 1,
        settles: 2,
        simulations: 4,
        buyersPerSide: 2,
        warmupVerifies: 8,
        upto: { verifies: 4, settles: 2, warmup: 2 },
        syncCountSettles: 2,
      });

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
        for (const segment of timeline!.segments.filter((s) => s.label !== "facilitator"))
          expect(segment.medianMs).toBeGreaterThan(0);
      }
      expect(result.simulateCeiling.failures).toBe(0);
      expect(result.table).toContain("reference");
      // The upto rail on both sides (issue 24, Measure): every deposit verify, deposit settle and claim settle valid.
      expect(result.upto.rows.map((row) => row[0])).toEqual([
        "upto deposit /verify req/s, c=8",
        "upto deposit /verify median ms, c=8",
        "upto deposit /settle median ms (2 sequential)",
        "upto claim /settle median ms (2 sequential)",
      ]);
      for (const row of result.upto.rows) {
        expect(Number(row[1]), row[0]).toBeGreaterThan(0);
        expect(Number(row[2]), row[0]).toBeGreaterThan(0);
      }
      for (const side of [result.upto.ours, result.upto.reference]) {
        expect([side.depositVerify.count, side.depositSettle.count, side.claimSettle.count]).toEqual([4, 2, 2]);
        expect([side.depositVerify.failures, side.depositSettle.failures, side.claimSettle.failures]).toEqual([
          0, 0, 0,
        ]);
        // Where an upto deposit's and claim's time goes, as for exact: the send among the chain's calls.
        for (const timeline of [side.depositTimeline, side.claimTimeline]) {
          expect(timeline).not.toBeNull();
          expect(timeline!.segments.map((segment) => segment.label)).toContain("sendTransaction");
        }
      }
      // Disk syncs per settle (strace, untimed): ours keeps its ledger in SQLite files, so each settle syncs at least
      // once; the reference keeps nothing. Without strace on the machine the figures are null, not made up.
      const syncs = [
        result.syncsPerSettle.ours,
        result.upto.ours.syncsPerDeposit,
        result.upto.ours.syncsPerClaim,
        result.syncsPerSettle.reference,
      ];
      if (straceAvailable()) {
        for (const ours of syncs.slice(0, 3)) expect(ours).toBeGreaterThanOrEqual(1);
        expect(result.syncsPerSettle.reference).toBe(0);
      } else for (const figure of syncs) expect(figure).toBeNull();
      expect(result.stateFilesystem.type).not.toBe("");
    },
    BENCH_LIMIT_MS,
  );
});

describe("npm run bench -- --real-timing (smoke, tiny n)", () => {
  it(
    "reports settle latency, the time after confirmation and the RPC calls of each kind of call, for both sides",
    async () => {
      const result = await runRealTimingBench({
        slotMs: 150,
        jitterMs: 20,
        rpcLatencyMsEachWay: 5,
        sequential: 2,
        concurrentVerifies: 8,
        warmupCalls: 2,
        dbLatencyMs: 0,
        farDbLatencyMs: 30,
      });

      const d1Row = "D1 round trips per call, awaited / after confirmation / background";
      expect(result.rows.map((row) => row[0])).toEqual([
        "verify: p50 / p95 ms",
        "verify: RPC calls per call",
        `verify: ${d1Row}`,
        "settle (vault exists): p50 / p95 ms",
        "settle (vault exists): answer after confirmation p50 / p95 ms",
        "settle (vault exists): RPC calls per call",
        `settle (vault exists): ${d1Row}`,
        "settle, just-in-time vault: p50 / p95 ms",
        "settle, just-in-time vault: answer after confirmation p50 / p95 ms",
        "settle, just-in-time vault: RPC calls per call",
        `settle, just-in-time vault: ${d1Row}`,
        "settle, sla-escrow funding: p50 / p95 ms",
        "settle, sla-escrow funding: answer after confirmation p50 / p95 ms",
        "settle, sla-escrow funding: RPC calls per call",
        `settle, sla-escrow funding: ${d1Row}`,
        "settle (vault exists), D1 30 ms away: p50 / p95 ms",
        "settle (vault exists), D1 30 ms away: answer after confirmation p50 / p95 ms",
        "settle (vault exists), D1 30 ms away: RPC calls per call",
        `settle (vault exists), D1 30 ms away: ${d1Row}`,
        "/verify req/s at c=32 (latency bound)",
        "/verify req/s at c=32: a forward-only Worker (this machine's ceiling)",
        "/verify at c=32: share of the ceiling",
      ]);
      const [ourVerify, ourSettle] = result.figures.ours;
      const [refVerify, refSettle] = result.figures.reference;
      for (const f of [ourVerify!, refVerify!])
        expect(f.rpcCallsByMethod.simulateTransaction, f.label).toBeGreaterThan(0);
      // Both sides sent each settle once; ours heard of the confirmation over PubSub, the reference polled.
      expect(ourSettle!.rpcCallsByMethod).toMatchObject({ sendTransaction: 1, signatureSubscribe: 1 });
      expect(refSettle!.rpcCallsByMethod.sendTransaction).toBe(1);
      expect(refSettle!.rpcCallsByMethod.getSignatureStatuses).toBeGreaterThan(0);
      // Every settle's answer came after the chain's confirmation of its transaction.
      for (const f of [...result.figures.ours.slice(1), refSettle!]) {
        expect(f.afterConfirmationMs, f.label).toHaveLength(2);
        for (const ms of f.afterConfirmationMs) expect(ms, f.label).toBeGreaterThan(0);
      }
      // The delayed-D1 entry saw ours' D1 calls: a verify waits for none, a settle for at least its ledger claim.
      expect(ourVerify!.d1).toMatchObject({ awaited: 0 });
      expect(ourSettle!.d1!.awaited).toBeGreaterThanOrEqual(1);
      const far = result.figures.ours.find((f) => f.label === "settle (vault exists), D1 30 ms away")!;
      expect(far.d1!.awaited).toBeGreaterThanOrEqual(1);
      expect(refSettle!.d1).toBeNull();
      expect(result.verifyThroughput.ours).toBeGreaterThan(0);
      expect(result.ceilingThroughput).toBeGreaterThan(0);
      // one simulate per verify, 10 ms round trips
      expect(result.latencyBound.ours).toBeCloseTo((32 * 1000) / (1 * 10), 5);
      expect(result.table).toContain("RPC calls per call, by method");
    },
    BENCH_LIMIT_MS,
  );
});
