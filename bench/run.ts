/**
 * `npm run bench`: /verify and /settle of this facilitator next to the official x402 reference facilitator, on the same
 * local chain, with fresh official-client payments (see bench/bench.ts). Prints the table with ours, the reference
 * and the ratios, then the per-round spread. Numbers are only as quiet as the machine: say what else was running.
 */
import os from "node:os";
import { type BenchResult, DEFAULT_OPTIONS, describeSettleTimelines, runBench, type SideName } from "./bench";
import { describeFilesystem, loadDuringRun } from "./machine";
import { fmt } from "./measure";
import { DEFAULT_REAL_TIMING_OPTIONS, type RealTimingOptions, runRealTimingBench } from "./real-timing";

const BENCH_DEADLINE_MS = 600_000;

const deadline = setTimeout(() => {
  console.error(`bench: exceeded ${BENCH_DEADLINE_MS / 1000} s; stopping`);
  process.exit(2);
}, BENCH_DEADLINE_MS);
deadline.unref();

const started = performance.now();
const load = loadDuringRun();
console.log(
  `bench: ${os.cpus().length} CPU(s) ` +
    `(${os.cpus()[0]?.model ?? "?"}), ` +
    `Node ${process.version}, load average ${load.before.map((x) => x.toFixed(2)).join(" ")}`,
);
if (process.argv.includes("--real-timing")) {
  const options = realTimingOptions(process.argv);
  runRealTimingBench({ ...options, log: (line) => console.log(`bench: ${line}`) })
    .then((result) => {
      console.log(`\n${result.table}\n`);
      console.log(`${load.finish()}; took ${((performance.now() - started) / 1000).toFixed(0)} s`);
      console.log(
        "method: the local chain confirms a transaction slot ± jitter ms after it lands and delays every RPC request " +
          "and PubSub message by the latency each way; " +
          "sequential calls' RPC calls are the chain's requests inside each call's span (websocket = a PubSub " +
          "connection); " +
          "'after confirmation' = the client's receipt of the answer minus the chain's confirmation time; the " +
          "latency bound = 32 / (RPC calls per verify × round trip).",
      );
      process.exit(0);
    })
    .catch(fail);
} else {
  runLocalSpeedBench();
}

/**
 * `--slot-ms N --jitter-ms N --rpc-latency-ms N --sequential N --concurrent-verifies N --warmup N --db-latency-ms N
 * --far-db-latency-ms N` over the defaults; `--compare-d1-ledger` adds settles on the D1 ledger at both distances.
 */
function realTimingOptions(argv: string[]): RealTimingOptions {
  const flag = (name: string, fallback: number): number => {
    const index = argv.indexOf(`--${name}`);
    if (index === -1) return fallback;
    const value = Number(argv[index + 1]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} needs a non-negative number`);
    return value;
  };
  const d = DEFAULT_REAL_TIMING_OPTIONS;
  return {
    slotMs: flag("slot-ms", d.slotMs),
    jitterMs: flag("jitter-ms", d.jitterMs),
    rpcLatencyMsEachWay: flag("rpc-latency-ms", d.rpcLatencyMsEachWay),
    sequential: flag("sequential", d.sequential),
    concurrentVerifies: flag("concurrent-verifies", d.concurrentVerifies),
    warmupCalls: flag("warmup", d.warmupCalls),
    dbLatencyMs: flag("db-latency-ms", d.dbLatencyMs),
    farDbLatencyMs: flag("far-db-latency-ms", d.farDbLatencyMs),
    compareD1Ledger: argv.includes("--compare-d1-ledger"),
  };
}

function fail(error: unknown): never {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}

function runLocalSpeedBench(): void {
  runBench({ ...DEFAULT_OPTIONS, log: (line) => console.log(`bench: ${line}`) })
    .then((result) => {
      console.log(`\n${result.table}\n`);
      console.log(`${result.upto.table}\n`);
      console.log(`per-round /verify req/s (spread): ${result.spread}`);
      console.log(
        `where a sequential /settle's time goes (median ms; "facilitator" = everything outside the chain's service ` +
          `time, loopback hops included):`,
      );
      console.log(describeSettleTimelines(result.settleTimelines, "exact"));
      console.log(describeSettleTimelines(uptoTimelines(result, "depositTimeline"), "upto deposit"));
      console.log(describeSettleTimelines(uptoTimelines(result, "claimTimeline"), "upto claim"));
      console.log(describeSyncs(result));
      console.log(`our Worker's local state (D1, KV, ledger objects): ${describeFilesystem(result.stateFilesystem)}`);
      console.log(`${load.finish()}; took ${((performance.now() - started) / 1000).toFixed(0)} s`);
      console.log(
        "method: both facilitators over HTTP on loopback, each in its own process (ours: served as npm start serves " +
          "it); " +
          "every call a distinct payment from @x402/svm's client, bodies serialised before the clock starts, one " +
          "keep-alive node:http client for both; " +
          "req/s = calls / wall time, median of the rounds; p99 pools the rounds; CPU = the facilitator's processes' " +
          "user+system time from /proc over all rounds / calls.",
      );
      process.exit(0);
    })
    .catch(fail);
}

function uptoTimelines(result: BenchResult, which: "depositTimeline" | "claimTimeline") {
  return { ours: result.upto.ours[which], reference: result.upto.reference[which] };
}

/** The untimed strace pass: disk syncs per settle of each kind, ours / reference. */
function describeSyncs(result: BenchResult): string {
  const pair = (ours: number | null, reference: number | null) =>
    `${ours === null ? "n/a" : fmt(ours, 1)} / ${reference === null ? "n/a" : fmt(reference, 1)}`;
  const per = (side: SideName) => result.upto[side];
  return (
    "disk syncs (fsync + fdatasync) per settle, ours / reference, strace on each side's processes over " +
    `${DEFAULT_OPTIONS.syncCountSettles} more sequential settles of each kind (untimed): ` +
    `exact ${pair(result.syncsPerSettle.ours, result.syncsPerSettle.reference)}; ` +
    `upto deposit ${pair(per("ours").syncsPerDeposit, per("reference").syncsPerDeposit)}; ` +
    `upto claim ${pair(per("ours").syncsPerClaim, per("reference").syncsPerClaim)}`
  );
}
