/**
 * The bench's settle timeline (bench/settle-timeline.ts): client call spans laid over the chain's request log.
 * Synthetic spans and log entries, so every segment's expected median is known exactly.
 */
import { describe, expect, it } from "vitest";
import { type ChainRequest, formatTimeline, settleTimeline } from "../../../bench/settle-timeline";

/** A settle at `startMs` that spends 1 ms, sends (2 ms), waits `pollGapMs`, reads the status (0.5 ms), then 3 ms. */
function settleAt(startMs: number, pollGapMs: number): { span: [number, number]; log: ChainRequest[] } {
  const send = { methods: ["sendTransaction"], receivedAtMs: startMs + 1, finishedAtMs: startMs + 3 };
  const status = {
    methods: ["getSignatureStatuses"],
    receivedAtMs: send.finishedAtMs + pollGapMs,
    finishedAtMs: send.finishedAtMs + pollGapMs + 0.5,
  };
  return { span: [startMs, status.finishedAtMs + 3], log: [send, status] };
}

describe("settle timeline", () => {
  it("gives the median of each segment of the most common call sequence, and counts the settles that made it", () => {
    const settles = [settleAt(1_000, 0.2), settleAt(1_100, 0.4), settleAt(1_200, 0.6)];
    // A fourth settle polled twice: another sequence, left out of the medians.
    const polledTwice = settleAt(1_300, 0.2);
    polledTwice.log.push({ methods: ["getSignatureStatuses"], receivedAtMs: 1_304, finishedAtMs: 1_304.5 });
    polledTwice.span[1] = 1_308;
    // Traffic outside every span (the bench's own bookkeeping calls) is ignored.
    const outside: ChainRequest = { methods: ["localnet_serviceTime"], receivedAtMs: 990, finishedAtMs: 991 };

    const timeline = settleTimeline(
      [...settles, polledTwice].map((s) => s.span),
      [outside, ...settles.flatMap((s) => s.log), ...polledTwice.log],
    );

    expect(timeline).not.toBeNull();
    expect(timeline!.settles).toBe(3);
    expect(timeline!.of).toBe(4);
    expect(timeline!.segments.map((s) => s.label)).toEqual([
      "facilitator",
      "sendTransaction",
      "facilitator",
      "getSignatureStatuses",
      "facilitator",
    ]);
    const medians = timeline!.segments.map((s) => s.medianMs);
    expect(medians[0]).toBeCloseTo(1, 9);
    expect(medians[1]).toBeCloseTo(2, 9);
    expect(medians[2]).toBeCloseTo(0.4, 9);
    expect(medians[3]).toBeCloseTo(0.5, 9);
    expect(medians[4]).toBeCloseTo(3, 9);
    expect(formatTimeline(timeline)).toBe(
      "facilitator 1.00 → sendTransaction 2.00 → facilitator 0.40 → getSignatureStatuses 0.50 → facilitator 3.00 (3 " +
        "of 4 settles)",
    );
  });

  it(
    "lays calls in flight together (parallel reads) as one chain segment, so no facilitator segment is " + "negative",
    () => {
      // Two settles, each reading two things at once, in either order, then sending.
      const settle = (
        startMs: number,
        first: string,
        second: string,
      ): { span: [number, number]; log: ChainRequest[] } => ({
        span: [startMs, startMs + 10],
        log: [
          { methods: [first], receivedAtMs: startMs + 1, finishedAtMs: startMs + 3 },
          { methods: [second], receivedAtMs: startMs + 1.5, finishedAtMs: startMs + 4 },
          { methods: ["sendTransaction"], receivedAtMs: startMs + 5, finishedAtMs: startMs + 7 },
        ],
      });
      const settles = [settle(0, "getMultipleAccounts", "getSlot"), settle(100, "getSlot", "getMultipleAccounts")];
      const timeline = settleTimeline(
        settles.map((s) => s.span),
        settles.flatMap((s) => s.log),
      );
      expect(timeline!.settles).toBe(2);
      expect(timeline!.segments).toEqual([
        { label: "facilitator", medianMs: 1 },
        { label: "getMultipleAccounts∥getSlot", medianMs: 3 },
        { label: "facilitator", medianMs: 1 },
        { label: "sendTransaction", medianMs: 2 },
        { label: "facilitator", medianMs: 3 },
      ]);
    },
  );

  it("reports a settle that made no chain call as one facilitator segment, and nothing at all as n/a", () => {
    expect(settleTimeline([[0, 2.5]], [])?.segments).toEqual([{ label: "facilitator", medianMs: 2.5 }]);
    expect(settleTimeline([], [])).toBeNull();
    expect(formatTimeline(null)).toBe("n/a");
  });
});
