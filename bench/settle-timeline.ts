/**
 * Where a sequential /settle's time goes: the client's start and end of each call laid over the local chain's request
 * log (localnet_requestLog). Between and around the chain's answers is the facilitator's own time (its work, its
 * database and the loopback hops); the chain's segments are its service time, as localnet_serviceTime counts it.
 *
 * Settles are grouped by the sequence of chain calls they made; the most common sequence is reported with the
 * median of each segment (a settle that retried or polled twice has another sequence and is left out of the medians).
 */
import { fmt, median } from "./measure";

export interface ChainRequest {
  methods: string[];
  receivedAtMs: number;
  finishedAtMs: number;
  /** A PubSub message (localnet/request-timing.ts): counted as a call, but it takes no time of its own. */
  pubsub?: true;
}

export interface SettleTimeline {
  /** Settles that made the reported sequence of chain calls, of all settles measured. */
  settles: number;
  of: number;
  /** Alternating facilitator and chain segments, first and last the facilitator's. */
  segments: { label: string; medianMs: number }[];
}

/** The timeline of the most common call sequence, or null when no settle could be laid over the log. */
export function settleTimeline(
  callSpansMs: readonly [number, number][],
  chainLog: readonly ChainRequest[],
): SettleTimeline | null {
  const bySequence = new Map<string, number[][]>();
  for (const [startMs, endMs] of callSpansMs) {
    // PubSub messages are instants inside the facilitator's own segments, not chain segments of their own.
    const calls = chainSegments(
      chainLog.filter((request) => !request.pubsub && request.receivedAtMs >= startMs && request.finishedAtMs <= endMs),
    );
    const durations: number[] = [];
    let previousEndMs = startMs;
    for (const call of calls) {
      durations.push(call.receivedAtMs - previousEndMs, call.finishedAtMs - call.receivedAtMs);
      previousEndMs = call.finishedAtMs;
    }
    durations.push(endMs - previousEndMs);
    const sequence = calls.map((call) => call.label).join(" ");
    const group = bySequence.get(sequence);
    if (group) group.push(durations);
    else bySequence.set(sequence, [durations]);
  }
  const [sequence, settles] = [...bySequence].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
  if (sequence === undefined || settles === undefined) return null;
  const methods = sequence === "" ? [] : sequence.split(" ");
  const labels = ["facilitator", ...methods.flatMap((method) => [method, "facilitator"])];
  return {
    settles: settles.length,
    of: callSpansMs.length,
    segments: labels.map((label, i) => ({ label, medianMs: median(settles.map((durations) => durations[i]!)) })),
  };
}

/** One segment of the chain's: a call, or calls in flight at the same time. */
interface ChainSegment {
  /** The call's methods joined with "+" (a batch); calls in flight together joined with "∥", in name order. */
  label: string;
  receivedAtMs: number;
  finishedAtMs: number;
}

/**
 * Chain calls in flight at the same time (a settle's parallel reads) as one segment from the first's arrival to the
 * last's answer: the facilitator's own time is what lies between segments, never negative.
 */
function chainSegments(calls: readonly ChainRequest[]): ChainSegment[] {
  const groups: { labels: string[]; receivedAtMs: number; finishedAtMs: number }[] = [];
  for (const call of [...calls].sort((a, b) => a.receivedAtMs - b.receivedAtMs)) {
    const label = call.methods.join("+") || "?";
    const last = groups.at(-1);
    if (last && call.receivedAtMs < last.finishedAtMs) {
      last.labels.push(label);
      last.finishedAtMs = Math.max(last.finishedAtMs, call.finishedAtMs);
    } else groups.push({ labels: [label], receivedAtMs: call.receivedAtMs, finishedAtMs: call.finishedAtMs });
  }
  return groups.map(({ labels, ...span }) => ({ label: labels.sort().join("∥"), ...span }));
}

export function formatTimeline(timeline: SettleTimeline | null): string {
  if (timeline === null) return "n/a";
  const segments = timeline.segments.map((segment) => `${segment.label} ${fmt(segment.medianMs, 2)}`).join(" → ");
  return `${segments} (${timeline.settles} of ${timeline.of} settles)`;
}
