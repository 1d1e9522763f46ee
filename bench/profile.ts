/**
 * `npm run profile`: CPU profiles of the Worker under load, taken in workerd through its inspector with the Chrome
 * DevTools protocol (Profiler domain). Drives a verify-heavy load, then sequential settles, each in its own profile,
 * and prints CPU time per verify / per settle (sampled non-idle time of the Worker's isolate divided by the calls)
 * and the top frames by self time. Only the Worker's isolate is profiled; other isolates on the same workerd thread
 * (Miniflare's local D1 and KV) are not, and part of their time shows up as "(program)". Needs Node's WebSocket
 * (the npm script passes --experimental-websocket).
 *
 *   npm run profile [-- <verifies> <settles>]
 *   PROFILE_OUT=<dir> npm run profile   (also writes verify.cpuprofile and settle.cpuprofile there)
 *   PROFILE_LEDGER=d1 npm run profile   (the settles on SVC_SETTLE_LEDGER=d1 instead of the default object ledger)
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PaymentPayload } from "@x402/core/types";
import {
  benchWorkerWithSeller,
  DEFAULT_OPTIONS,
  fundedBuyers,
  mustSucceed,
  paymentFactory,
  post,
  WARMUP_SETTLES,
} from "./bench";
import { fmt, formatTable, median, runPhase } from "./measure";
import { cpuMsOf, workerdChildrenOf } from "./process-cpu";

const VERIFIES = Number(process.argv[2] ?? 600);
const SETTLES = Number(process.argv[3] ?? 60);
const SAMPLING_INTERVAL_MICROS = 100;
const TOP_FRAMES = 25;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A minimal CDP session over one WebSocket: send a method, await its result. */
class Inspector {
  private nextId = 1;
  private pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private constructor(private socket: WebSocket) {
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    });
  }

  /** The inspector target whose title matches: workerd lists "workerd: worker core:user:<name>" beside its own. */
  static async connect(inspectorOrigin: string, title: RegExp): Promise<Inspector> {
    const targets = (await (await fetch(`${inspectorOrigin}/json`)).json()) as {
      webSocketDebuggerUrl: string;
      title?: string;
    }[];
    const target = targets.find((t) => title.test(t.title ?? ""));
    if (!target) throw new Error(`no inspector target matching ${title} at ${inspectorOrigin}/json`);
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error("inspector WebSocket failed")), { once: true });
    });
    return new Inspector(socket);
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
    this.socket.send(JSON.stringify({ id, method, params }));
    return answer;
  }

  close(): void {
    this.socket.close();
  }
}

async function profiled(inspector: Inspector, run: () => Promise<void>): Promise<CpuProfile> {
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_MICROS });
  await inspector.send("Profiler.start");
  await run();
  return (await inspector.send<{ profile: CpuProfile }>("Profiler.stop")).profile;
}

/** Self time per frame (function + location), busy time (all samples but idle), in milliseconds. */
function summarise(profile: CpuProfile): {
  busyMs: number;
  wallMs: number;
  frames: { frame: string; selfMs: number }[];
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) {
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const frames = new Map<string, number>();
  let busyMicros = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    busyMicros += micros;
    const file = frame.url.split("/").slice(-2).join("/");
    const key = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    frames.set(key, (frames.get(key) ?? 0) + micros);
  }
  return {
    busyMs: busyMicros / 1000,
    wallMs: (profile.endTime - profile.startTime) / 1000,
    frames: [...frames]
      .map(([frame, micros]) => ({ frame, selfMs: micros / 1000 }))
      .sort((a, b) => b.selfMs - a.selfMs),
  };
}

function print(label: string, calls: number, profile: CpuProfile): void {
  const { busyMs, wallMs, frames } = summarise(profile);
  console.log(
    `\n${label}: ${calls} calls, isolate ` +
      `busy ${fmt(busyMs)} ms of ${fmt(wallMs)} ms wall → CPU per call ${fmt(busyMs / calls, 3)} ms`,
  );
  console.log(
    formatTable(
      ["top frames by self time", "self ms", "per call µs", "% busy"],
      frames
        .slice(0, TOP_FRAMES)
        .map((f) => [
          f.frame.slice(0, 90),
          fmt(f.selfMs, 1),
          fmt((f.selfMs / calls) * 1000, 0),
          fmt((100 * f.selfMs) / busyMs, 1),
        ]),
    ),
  );
}

/** SVC_SETTLE_LEDGER from PROFILE_LEDGER (object or d1), else the deployment's default. */
function ledgerVar(): Record<string, string> {
  const ledger = process.env.PROFILE_LEDGER;
  if (ledger === undefined) return {};
  if (ledger !== "object" && ledger !== "d1") throw new Error('PROFILE_LEDGER must be "object" or "d1"');
  return { SVC_SETTLE_LEDGER: ledger };
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { chain, worker, api, line } = await benchWorkerWithSeller(cleanups, { vars: ledgerVar(), inspector: true });
    if (!worker.inspectorUrl) throw new Error("workerd did not expose an inspector");
    console.log(`profile: Worker ${api}, inspector ${worker.inspectorUrl}`);

    const makePayments = paymentFactory(chain, await fundedBuyers(chain, 8), line);
    const call = (kind: "verify" | "settle") => (p: PaymentPayload) => post(`${api}/${kind}`, kind, p, line);

    // Warm-up outside the profiles: JIT, caches (mint, vault existence), the first settle.
    const warmupVerifies = DEFAULT_OPTIONS.warmupVerifies;
    const warm = await makePayments(warmupVerifies + WARMUP_SETTLES);
    mustSucceed("warm-up verify", await runPhase(warm.slice(0, warmupVerifies), 8, call("verify")));
    mustSucceed("warm-up settle", await runPhase(warm.slice(warmupVerifies), 1, call("settle")));

    const inspector = await Inspector.connect(worker.inspectorUrl, /core:user:/);
    const verifies = await makePayments(VERIFIES);
    const verifyProfile = await profiled(inspector, async () =>
      mustSucceed("verify", await runPhase(verifies, 8, call("verify"))),
    );
    const settles = await makePayments(SETTLES);
    let settlePhase: Awaited<ReturnType<typeof runPhase>> | undefined;
    const workerd = workerdChildrenOf(process.pid);
    const cpuBefore = cpuMsOf(workerd);
    const settleProfile = await profiled(inspector, async () => {
      settlePhase = await runPhase(settles, 1, call("settle"));
      return mustSucceed("settle", settlePhase);
    });
    const cpuAfter = cpuMsOf(workerd);
    const osCpu = cpuBefore === null || cpuAfter === null ? "n/a" : fmt((cpuAfter - cpuBefore) / SETTLES, 2);
    inspector.close();

    const saveDir = process.env.PROFILE_OUT;
    if (saveDir) {
      await mkdir(saveDir, { recursive: true });
      await writeFile(path.join(saveDir, "verify.cpuprofile"), JSON.stringify(verifyProfile));
      await writeFile(path.join(saveDir, "settle.cpuprofile"), JSON.stringify(settleProfile));
      console.log(
        `profile: wrote verify.cpuprofile and settle.cpuprofile ` +
          `to ${saveDir} (open them in Chrome DevTools' Performance panel)`,
      );
    }
    print(`/verify (c=8)`, VERIFIES, verifyProfile);
    print(
      `/settle ` +
        `(sequential, ${process.env.PROFILE_LEDGER ?? "object"} ledger; under the profiler: ` +
        `median ${fmt(median(settlePhase!.latenciesMs), 2)} ms, workerd's OS CPU per settle ${osCpu} ms)`,
      SETTLES,
      settleProfile,
    );
    console.log(
      `\n(sampling ` +
        `every ${SAMPLING_INTERVAL_MICROS} µs in the Worker's isolate; "busy" excludes (idle); (program) and ` +
        `(garbage collector) are engine time)`,
    );
  } finally {
    for (const step of cleanups.reverse()) await step().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
