/**
 * The benchmark behind `npm run bench` (and its smoke test): this facilitator (the real Worker, started the way
 * `npm start` starts it: wrangler's dev server with workerd and local D1) next to the official x402 reference
 * facilitator (@x402/core + @x402/svm in one Node process, bench/reference-server.ts), on the same local chain (its
 * own process), with fresh payments made by the official client (@x402/svm ExactSvmScheme, client side).
 *
 * Measured: /verify throughput at c = 1, 8, 32 and p99 at c = 32 (every call a distinct payment, rounds alternate the
 * side that goes first, medians reported), /settle median of sequential settles, and the chain's own
 * simulateTransaction ceiling (the upper bound of any facilitator that simulates each payment). Then the `upto` rail on
 * both sides: deposit /verify, deposit and claim /settle (bench/upto-bench.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { chainRpc, fundFromFaucet } from "../demo/chain-rpc";
import { keypairFromSeed, randomKeypair } from "../scripts/lib/keypair";
import { startWorker } from "../scripts/lib/run-worker";
import { CLUSTERS } from "../src/platform/config/networks";
import { postJsonText } from "./http-client";
import { filesystemOf, type StateFilesystem } from "./machine";
import { fmt, formatTable, mean, median, type PhaseResult, percentile, runPhase } from "./measure";
import { cpuMsOf, workerdChildrenOf } from "./process-cpu";
import { type ChainRequest, formatTimeline, type SettleTimeline, settleTimeline } from "./settle-timeline";
import { countDiskSyscalls, diskSyncs, straceAvailable } from "./syscall-count";
import { runUptoBench, type UptoBenchOptions, type UptoBenchResult } from "./upto-bench";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;
const PRICE_RAW = 250_000n; // 0.25 USDC, under the official client's default cap
const RESOURCE = { url: "http://127.0.0.1/bench/resource", description: "bench", mimeType: "application/json" };
/** The throughput runs measure the facilitator, not the abuse limits. */
/**
 * A load generator, not an attacker: rate limits off, and the fee payer's daily spend caps raised so a few funded
 * buyers can pay many times and front many just-in-time vaults (docs/money-rules.md; the caps themselves are tested
 * elsewhere). The caps are still checked on every settle: the bench pays for the booking as production does.
 */
export const BENCH_VARS = {
  SVC_RATE_LIMITS_ENABLED: "false",
  SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS: "1000000000",
  SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS: "1000000000",
  SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: "10000000000",
  SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS: "10000000000",
  // `SVC_SETTLE_LEDGER=d1 npm run bench` measures the D1 ledger instead of the default object ledger.
  ...(process.env.SVC_SETTLE_LEDGER ? { SVC_SETTLE_LEDGER: process.env.SVC_SETTLE_LEDGER } : {}),
};

export interface BenchOptions {
  /** Distinct payments per side and round at c = 1, 8, 32. */
  verifyPayments: { c1: number; c8: number; c32: number };
  rounds: number;
  /** Sequential settles per side. */
  settles: number;
  /** simulateTransaction calls for the chain's ceiling (c = 8). */
  simulations: number;
  buyersPerSide: number;
  /** Verifies per side before anything is measured. */
  warmupVerifies: number;
  /** The upto rail's phases (deposit verify, deposit and claim settle). */
  upto: UptoBenchOptions;
  /**
   * Settles per side and kind (exact; upto deposit and claim) run once more, untimed, under strace to count the disk
   * syncs each waits for; 0 skips the pass (as does a machine without strace).
   */
  syncCountSettles: number;
  log?: (line: string) => void;
}

export const DEFAULT_OPTIONS: BenchOptions = {
  verifyPayments: { c1: 60, c8: 240, c32: 320 },
  rounds: 3,
  settles: 30,
  simulations: 400,
  buyersPerSide: 8,
  warmupVerifies: 400,
  upto: { verifies: 200, settles: 20, warmup: 50 },
  syncCountSettles: 10,
};

export type SideName = "ours" | "reference";

/** A phase plus the CPU its facilitator's own processes spent on it (null where /proc cannot be read). */
export interface MeasuredPhase extends PhaseResult {
  facilitatorCpuMs: number | null;
  /** Wall time the chain spent answering requests during the phase (its own accounting, localnet_serviceTime). */
  chainServiceMs: number;
}

export interface SideResult {
  verify: { c1: MeasuredPhase[]; c8: MeasuredPhase[]; c32: MeasuredPhase[] };
  settle: MeasuredPhase;
}

export interface BenchResult {
  ours: SideResult;
  reference: SideResult;
  simulateCeiling: PhaseResult;
  /** Rows of the printed table: metric, ours, reference, ratio. */
  rows: [string, string, string, string][];
  table: string;
  /** Per-round throughput of every phase, for the spread. */
  spread: string;
  /** Where a sequential settle's time goes, per side (bench/settle-timeline.ts). */
  settleTimelines: Record<SideName, SettleTimeline | null>;
  /** The upto rail, both sides (its own table). */
  upto: UptoBenchResult;
  /** Disk syncs (fsync + fdatasync) per exact /settle, counted in the untimed strace pass; null where not counted. */
  syncsPerSettle: Record<SideName, number | null>;
  /** Where our Worker's local state (D1, KV, the ledger's objects) was kept. */
  stateFilesystem: StateFilesystem;
}

const CONCURRENCY = { c1: 1, c8: 8, c32: 32 } as const;
/** Settles per side before anything is measured (settle-only code gets warm too). */
export const WARMUP_SETTLES = 10;
type Level = keyof typeof CONCURRENCY;

interface Party {
  name: SideName;
  /** Base URL of /verify and /settle. */
  api: string;
  line: PaymentRequirements;
  /** The processes that are this facilitator (for CPU accounting). */
  pids(): number[];
  /** The chain it talks to. */
  chain: string;
  makePayments(count: number): Promise<PaymentPayload[]>;
}

/** Calls `kind` once per payment at concurrency `c`; bodies are serialised before the clock starts. */
async function measuredPhase(
  party: Party,
  kind: "verify" | "settle",
  payments: PaymentPayload[],
  concurrency: number,
): Promise<MeasuredPhase> {
  const bodies = payments.map((payment) => paymentBody(payment, party.line));
  const pids = party.pids();
  const chainBefore = await chainServiceTime(party.chain);
  const cpuBefore = cpuMsOf(pids);
  const phase = await runPhase(bodies, concurrency, (body) => postBody(`${party.api}/${kind}`, kind, body));
  const cpuAfter = cpuMsOf(pids);
  const chainAfter = await chainServiceTime(party.chain);
  return {
    ...phase,
    facilitatorCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    chainServiceMs: chainAfter - chainBefore,
  };
}

async function chainServiceTime(chain: string): Promise<number> {
  return (await chainRpc<{ totalMs: number }>(chain, "localnet_serviceTime", [])).totalMs;
}

export async function chainRequestLog(chain: string, sinceMs: number): Promise<ChainRequest[]> {
  return chainRpc<ChainRequest[]>(chain, "localnet_requestLog", [sinceMs]);
}

/** The settle timelines as printed lines, one per side (`kind` names the settle, e.g. "upto claim"). */
export function describeSettleTimelines(timelines: Record<SideName, SettleTimeline | null>, kind = ""): string {
  return (Object.keys(timelines) as SideName[])
    .map((side) => `  ${kind ? `${kind}, ` : ""}${side}: ${formatTimeline(timelines[side])}`)
    .join("\n");
}

/** The timeline of a sequential settle phase: its calls laid over the chain's request log since its first call. */
export async function settleTimelineOf(chain: string, phase: PhaseResult): Promise<SettleTimeline | null> {
  const first = phase.callSpansMs[0];
  return first ? settleTimeline(phase.callSpansMs, await chainRequestLog(chain, first[0])) : null;
}

/**
 * Disk syncs per call of `run` (sequential settles), with `pids` traced by strace; null when strace cannot run here
 * or there was nothing to count.
 */
export async function syncsPerCall(pids: readonly number[], run: () => Promise<PhaseResult>): Promise<number | null> {
  if (pids.length === 0 || !straceAvailable()) return null;
  const { result, calls } = await countDiskSyscalls(pids, run);
  return result.count === 0 ? null : diskSyncs(calls) / result.count;
}

export async function runBench(options: BenchOptions): Promise<BenchResult> {
  const log = options.log ?? (() => {});
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const chain = (await startChild("bench/chain-process.ts", {}, cleanups)).url;
    log(`local chain (own process): ${chain}`);
    const { api, reference, refFeePayer, ourFeePayer, stateDir } = await startFacilitators(chain, cleanups);
    const stateFilesystem = await filesystemOf(stateDir);
    const ourPids = workerdChildrenOf(process.pid);
    log(
      `ours: the Worker as npm start serves it (its production bundle in workerd through Miniflare, local D1), ${api}`,
    );
    log(`reference: @x402/core + @x402/svm in one Node process, ${reference.url}`);

    // A seller that activated its own vault (as the seller guide says), so no payment needs provisioning.
    const sellerWallet = await activatedSeller(api, chain);
    const ourLine = await enrichLine(api, sellerWallet);
    const refLine: PaymentRequirements = { ...ourLine, extra: { ...ourLine.extra, feePayer: refFeePayer.address } };
    const parties: Party[] = [
      {
        name: "ours",
        api,
        chain,
        line: ourLine,
        pids: () => ourPids,
        makePayments: paymentFactory(chain, await fundedBuyers(chain, options.buyersPerSide), ourLine),
      },
      {
        name: "reference",
        api: reference.url,
        chain,
        line: refLine,
        pids: () => [reference.pid],
        makePayments: paymentFactory(chain, await fundedBuyers(chain, options.buyersPerSide), refLine),
      },
    ];

    // Warm-up, not reported: enough calls for both JITs (V8 in workerd and in Node) to optimise the hot paths, which
    // takes a few hundred calls; a handful left the first round ~30% slower than the rest on both sides.
    for (const party of parties) {
      const warm = await party.makePayments(options.warmupVerifies + WARMUP_SETTLES);
      mustSucceed(
        `warm-up verify (${party.name})`,
        await measuredPhase(party, "verify", warm.slice(0, options.warmupVerifies), 8),
      );
      mustSucceed(
        `warm-up settle (${party.name})`,
        await measuredPhase(party, "settle", warm.slice(options.warmupVerifies), 1),
      );
    }

    const results: Record<SideName, SideResult> = {
      ours: { verify: { c1: [], c8: [], c32: [] }, settle: undefined as unknown as MeasuredPhase },
      reference: { verify: { c1: [], c8: [], c32: [] }, settle: undefined as unknown as MeasuredPhase },
    };
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? parties : [...parties].reverse();
      for (const level of Object.keys(CONCURRENCY) as Level[]) {
        log(
          `round ${round + 1}/${options.rounds}: /verify at ` +
            `c=${CONCURRENCY[level]}, ${options.verifyPayments[level]} fresh payments per side`,
        );
        for (const party of order) {
          const payments = await party.makePayments(options.verifyPayments[level]);
          const phase = await measuredPhase(party, "verify", payments, CONCURRENCY[level]);
          mustSucceed(`verify c=${CONCURRENCY[level]} (${party.name})`, phase);
          results[party.name].verify[level].push(phase);
        }
      }
    }
    log(`/settle: ${options.settles} sequential fresh payments per side`);
    const settleTimelines = {} as Record<SideName, SettleTimeline | null>;
    for (const party of parties) {
      const payments = await party.makePayments(options.settles);
      const phase = await measuredPhase(party, "settle", payments, 1);
      mustSucceed(`settle (${party.name})`, phase);
      results[party.name].settle = phase;
      settleTimelines[party.name] = await settleTimelineOf(party.chain, phase);
    }
    const upto = await runUptoBench(
      chain,
      [
        {
          name: "ours",
          api,
          feePayer: ourFeePayer.address,
          buyers: await fundedBuyers(chain, options.buyersPerSide),
          pids: ourPids,
        },
        {
          name: "reference",
          api: reference.url,
          feePayer: refFeePayer.address,
          buyers: await fundedBuyers(chain, options.buyersPerSide),
          pids: [reference.pid],
        },
      ],
      { ...options.upto, syncCountSettles: options.syncCountSettles },
      log,
    );
    const syncsPerSettle = {} as Record<SideName, number | null>;
    if (options.syncCountSettles > 0) {
      log(`disk syncs: ${options.syncCountSettles} more sequential settles per side under strace (untimed)`);
      for (const party of parties) {
        const payments = await party.makePayments(options.syncCountSettles);
        syncsPerSettle[party.name] = await syncsPerCall(party.pids(), async () => {
          const phase = await measuredPhase(party, "settle", payments, 1);
          mustSucceed(`settle under strace (${party.name})`, phase);
          return phase;
        });
      }
    } else for (const party of parties) syncsPerSettle[party.name] = null;
    log(`chain ceiling: ${options.simulations} simulateTransaction calls at c=8`);
    const toSimulate = await parties[0]!.makePayments(options.simulations);
    const simulateCeiling = await runPhase(toSimulate, 8, (p) => simulate(chain, p));
    mustSucceed("simulateTransaction ceiling", simulateCeiling);

    return {
      ours: results.ours,
      reference: results.reference,
      simulateCeiling,
      settleTimelines,
      upto,
      syncsPerSettle,
      stateFilesystem,
      ...report(results.ours, results.reference, simulateCeiling),
    };
  } finally {
    for (const step of cleanups.reverse()) await step().catch(() => {});
  }
}

function report(
  ours: SideResult,
  ref: SideResult,
  ceiling: PhaseResult,
): { rows: BenchResult["rows"]; table: string; spread: string } {
  const tput = (phases: PhaseResult[]) => median(phases.map((p) => p.throughputPerSecond));
  const cpuPerCall = (phases: MeasuredPhase[]) =>
    phases.some((p) => p.facilitatorCpuMs === null)
      ? Number.NaN
      : phases.reduce((sum, p) => sum + p.facilitatorCpuMs!, 0) / phases.reduce((sum, p) => sum + p.count, 0);
  const allVerifies = (side: SideResult) => [...side.verify.c1, ...side.verify.c8, ...side.verify.c32];
  // What a sequential settle spends outside the chain: the facilitator's work, its database and the loopback hops.
  const ownTime = (phase: MeasuredPhase) => mean(phase.latenciesMs) - phase.chainServiceMs / phase.count;
  const p99 = (phases: PhaseResult[]) =>
    percentile(
      phases.flatMap((p) => p.latenciesMs),
      99,
    );
  const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${fmt(a / b, 2)}x` : "n/a");
  const rows: BenchResult["rows"] = [
    ...(Object.keys(CONCURRENCY) as Level[]).map((level): [string, string, string, string] => [
      `/verify req/s, c=${CONCURRENCY[level]}`,
      fmt(tput(ours.verify[level])),
      fmt(tput(ref.verify[level])),
      ratio(tput(ours.verify[level]), tput(ref.verify[level])),
    ]),
    [
      "/verify p99 ms, c=32",
      fmt(p99(ours.verify.c32)),
      fmt(p99(ref.verify.c32)),
      ratio(p99(ours.verify.c32), p99(ref.verify.c32)),
    ],
    [
      `/settle median ms (${ours.settle.count} sequential)`,
      fmt(median(ours.settle.latenciesMs)),
      fmt(median(ref.settle.latenciesMs)),
      ratio(median(ours.settle.latenciesMs), median(ref.settle.latenciesMs)),
    ],
    [
      "/settle own time ms (mean latency - chain's service time)",
      fmt(ownTime(ours.settle), 2),
      fmt(ownTime(ref.settle), 2),
      ratio(ownTime(ours.settle), ownTime(ref.settle)),
    ],
    [
      "facilitator CPU ms per /verify (OS accounting)",
      fmt(cpuPerCall(allVerifies(ours)), 2),
      fmt(cpuPerCall(allVerifies(ref)), 2),
      ratio(cpuPerCall(allVerifies(ours)), cpuPerCall(allVerifies(ref))),
    ],
    [
      "facilitator CPU ms per /settle (OS accounting)",
      fmt(cpuPerCall([ours.settle]), 2),
      fmt(cpuPerCall([ref.settle]), 2),
      ratio(cpuPerCall([ours.settle]), cpuPerCall([ref.settle])),
    ],
    ["chain's own simulateTransaction ceiling, c=8 (req/s)", fmt(ceiling.throughputPerSecond), "", ""],
  ];
  const table = formatTable(["", "ours", "reference", "ratio"], rows);
  const spread = (Object.keys(CONCURRENCY) as Level[])
    .map(
      (level) =>
        `c=${CONCURRENCY[level]}: ours ` +
        `[${ours.verify[level].map((p) => fmt(p.throughputPerSecond, 0)).join(", ")}] reference ` +
        `[${ref.verify[level].map((p) => fmt(p.throughputPerSecond, 0)).join(", ")}]`,
    )
    .join("; ");
  return { rows, table, spread };
}

export function mustSucceed(label: string, phase: PhaseResult): void {
  if (phase.failures > 0)
    throw new Error(`${label}: ${phase.failures} of ${phase.count} failed: ${phase.failureSamples.join("; ")}`);
}

/** The x402 v2 /verify and /settle body. */
export function paymentBody(payment: PaymentPayload, requirements: PaymentRequirements): string {
  return JSON.stringify({ x402Version: 2, paymentPayload: payment, paymentRequirements: requirements });
}

/** POST the x402 v2 body; null when the answer is isValid / success, else the reason. */
export function post(
  url: string,
  kind: "verify" | "settle",
  payment: PaymentPayload,
  requirements: PaymentRequirements,
): Promise<string | null> {
  return postBody(url, kind, paymentBody(payment, requirements));
}

/** POST an already serialised body; null when the answer is isValid / success, else the reason. */
export async function postBody(url: string, kind: "verify" | "settle", body: string): Promise<string | null> {
  const response = await postJsonText(url, body);
  let answer: {
    isValid?: boolean;
    success?: boolean;
    invalidReason?: string;
    errorReason?: string;
    invalidMessage?: string;
    errorMessage?: string;
  };
  try {
    answer = JSON.parse(response.text) as typeof answer;
  } catch {
    return `HTTP ${response.status}, not JSON: ${response.text.slice(0, 300)}`;
  }
  const ok = kind === "verify" ? answer.isValid === true : answer.success === true;
  return ok
    ? null
    : `HTTP ${response.status} ${answer.invalidReason ?? answer.errorReason}: ` +
        `${answer.invalidMessage ?? answer.errorMessage ?? ""}`;
}

async function simulate(chain: string, payment: PaymentPayload): Promise<string | null> {
  const transaction = (payment.payload as { transaction: string }).transaction;
  const result = await chainRpc<{ value: { err: unknown } }>(chain, "simulateTransaction", [
    transaction,
    { encoding: "base64", sigVerify: false, commitment: "confirmed" },
  ]);
  // The fee payer has not signed, but the transfer itself must succeed in the simulation.
  return result.value.err === null ? null : `simulation error ${JSON.stringify(result.value.err)}`;
}

/** A buyer's official client scheme (exact by default; the upto bench passes its own). */
export type ClientSchemeOf = (
  buyer: KeyPairSigner,
  chain: string,
) => {
  createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
  ): Promise<{ payload: Record<string, unknown> }>;
};
const exactClientScheme: ClientSchemeOf = (buyer, chain) => new ExactSvmClientScheme(buyer, { rpcUrl: chain });

/**
 * Distinct payments by the official client, round-robin over the buyers (each carries a random memo nonce, or opens its
 * own channel).
 */
export function paymentFactory(
  chain: string,
  buyers: KeyPairSigner[],
  requirements: PaymentRequirements,
  schemeOf: ClientSchemeOf = exactClientScheme,
  resource = RESOURCE,
) {
  const schemes = buyers.map((buyer) => schemeOf(buyer, chain));
  return async (count: number): Promise<PaymentPayload[]> => {
    const payments: PaymentPayload[] = new Array(count);
    const built = await runPhase(
      Array.from({ length: count }, (_, i) => i),
      16,
      async (i) => {
        const partial = await schemes[i % schemes.length]!.createPaymentPayload(2, requirements);
        payments[i] = { x402Version: 2, resource, accepted: requirements, payload: partial.payload };
        return null;
      },
    );
    mustSucceed("building payments with the official client", built);
    return payments;
  };
}

export async function fundedBuyers(chain: string, count: number): Promise<KeyPairSigner[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
      await fundFromFaucet(chain, buyer.address, 10_000_000, 1_000_000_000n);
      return buyer;
    }),
  );
}

/** The seller activates its own vault through /sellers/provision-tx, signing and paying for it. */
export async function activatedSeller(api: string, chain: string): Promise<string> {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const seller = keypairFromSeed(seed);
  await fundFromFaucet(chain, seller.address, 1_000_000_000);
  const response = await fetch(`${api}/sellers/provision-tx`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ wallet: seller.address, asset: USDC }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`provision-tx answered ${response.status}: ${await response.text()}`);
  const { transaction } = (await response.json()) as { transaction: string };
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const signed = await partiallySignTransaction(
    [signer.keyPair],
    getTransactionDecoder().decode(getBase64Encoder().encode(transaction)),
  );
  await chainRpc(chain, "sendTransaction", [getBase64EncodedWireTransaction(signed), { encoding: "base64" }]);
  return seller.address;
}

export async function enrichLine(
  api: string,
  sellerWallet: string,
  amountRaw = PRICE_RAW,
): Promise<PaymentRequirements> {
  const response = await fetch(`${api}/payment-required/enrich`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      x402Version: 2,
      resource: RESOURCE,
      accepts: [
        {
          scheme: "exact",
          network: DEVNET,
          asset: USDC,
          amount: amountRaw.toString(),
          payTo: sellerWallet,
          maxTimeoutSeconds: 60,
          extra: {},
        },
      ],
    }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`enrich answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
}

/**
 * Both facilitators on `chain`, each with a funded fee payer of its own: ours as npm start serves it, the reference in
 * its own Node process. Both are stopped by the cleanups.
 */
/** `ours` may run from another entry module (the real-timing bench's delayed-D1 wrapper) with extra variables. */
export interface OurWorkerOptions {
  entrypoint?: string;
  vars?: Record<string, string>;
}

export async function startFacilitators(chain: string, cleanups: (() => Promise<void>)[], ours: OurWorkerOptions = {}) {
  const ourFeePayer = randomKeypair();
  const refFeePayer = randomKeypair();
  await fundFromFaucet(chain, ourFeePayer.address, 1_000_000_000_000);
  await fundFromFaucet(chain, refFeePayer.address, 1_000_000_000_000);
  const worker = await startWorker({
    rpcUrl: chain,
    feePayerSecretKeyBase58: ourFeePayer.secretKeyBase58,
    vars: { ...BENCH_VARS, ...ours.vars },
    ...(ours.entrypoint ? { entrypoint: ours.entrypoint } : {}),
  });
  cleanups.push(worker.stop);
  const reference = await startChild(
    "bench/reference-server.ts",
    { REF_RPC_URL: chain, REF_FEE_PAYER_SECRET_KEY: refFeePayer.secretKeyBase58 },
    cleanups,
  );
  return {
    api: `${worker.url}/api/v1/facilitator`,
    reference,
    refFeePayer,
    ourFeePayer,
    stateDir: worker.stateDir,
  };
}

/** A bench helper in its own Node process (tsx) that prints {"url"} once ready; stopped by the cleanups. */
export async function startChild(
  script: string,
  env: Record<string, string>,
  cleanups: (() => Promise<void>)[],
): Promise<{ url: string; pid: number }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => {
          if (child.exitCode === null) child.kill("SIGKILL");
          resolve();
        }, 3_000).unref();
      }),
  );
  const lines = createInterface({ input: child.stdout! });
  return new Promise<{ url: string; pid: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 30 s`)), 30_000);
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
    lines.once("line", (line) => {
      clearTimeout(timer);
      try {
        resolve({ url: (JSON.parse(line) as { url: string }).url, pid: child.pid! });
      } catch {
        reject(new Error(`unexpected output from ${script}: ${line}`));
      }
    });
  });
}

/**
 * The diagnostics' setup (bench/settle-syscalls.ts, bench/profile.ts): a local chain, our Worker with a funded fee
 * payer of its own (`vars` over BENCH_VARS), and an activated seller's enriched exact line.
 */
export async function benchWorkerWithSeller(
  cleanups: (() => Promise<void>)[],
  options: { vars?: Record<string, string>; inspector?: boolean } = {},
) {
  const chain = (await startChild("bench/chain-process.ts", {}, cleanups)).url;
  const feePayer = randomKeypair();
  await fundFromFaucet(chain, feePayer.address, 1_000_000_000_000);
  const worker = await startWorker({
    rpcUrl: chain,
    feePayerSecretKeyBase58: feePayer.secretKeyBase58,
    vars: { ...BENCH_VARS, ...options.vars },
    inspector: options.inspector ?? false,
  });
  cleanups.push(worker.stop);
  const api = `${worker.url}/api/v1/facilitator`;
  const line: PaymentRequirements = await enrichLine(api, await activatedSeller(api, chain));
  return { chain, worker, api, line };
}
