/**
 * `npm run bench`: verify and settle throughput and latency of this facilitator (the real Worker, over HTTP) side
 * by side with the official x402 reference facilitator (@x402/core x402Facilitator + @x402/svm ExactSvmScheme,
 * in-process, which is how it is used), on the same local chain, with the same kind of payments.
 *
 * Bounded: fixed counts, loopback only, an overall deadline. See printMethod() for what is measured and how.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { AsyncLocalStorage } from "node:async_hooks";
import { createInterface } from "node:readline";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createKeyPairSignerFromBytes, createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { x402Facilitator } from "@x402/core/facilitator";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner, type FacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmFacilitatorScheme } from "@x402/svm/exact/facilitator";
import { startWorker, type RunningWorker } from "../scripts/lib/run-worker";

/** A load test from one address would hit the per-client limits within a second: they are off for the bench only. */
const BENCH_VARS = { SVC_RATE_LIMITS_ENABLED: "false" };
import { randomKeypair } from "../scripts/lib/keypair";
import { CLUSTERS } from "../src/config/networks";
import { fundFromFaucet, tokenAccountBalance } from "../demo/chain-rpc";
import { activateSellerVault } from "../demo/activate-seller";
import { fmt, formatTable, mean, median, percentile, runPhase, type PhaseResult } from "./measure";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;

/** Distinct pre-signed payments per side and round, each verified then settled. */
const PAYMENTS_PER_SIDE = 200;
/** Rounds alternate the sides, so that noise from other processes on this machine hits both; medians are reported. */
const ROUNDS = 3;
const CONCURRENCY = 16;
/** Serial settles (and verifies) per side for the own-time breakdown. */
const PROFILE_PAYMENTS = 30;
const WARMUP_PAYMENTS = 5;
const WARMUP_ROUND_PAYMENTS = 100;
const EXPERIMENT_ROUNDS = 2;
const BUYERS_PER_SIDE = 8;
const PRICE_RAW = 250_000n; // 0.25 USDC
const BUYER_USDC_RAW = 100_000_000n;
const FEE_PAYER_LAMPORTS = 1_000_000_000_000;
const BENCH_DEADLINE_MS = 170_000;
const RESOURCE = { url: "http://127.0.0.1/bench/resource", description: "bench", mimeType: "application/json" };

interface Interval {
  start: number;
  end: number;
}

type Side = "ours" | "oursViaProxy" | "reference";

const cleanups: (() => Promise<void> | void)[] = [];

async function main(): Promise<void> {
  const benchStarted = performance.now();
  const deadline = setTimeout(() => {
    console.error(`bench: exceeded ${BENCH_DEADLINE_MS / 1000} s; stopping`);
    void cleanup().finally(() => process.exit(2));
  }, BENCH_DEADLINE_MS);
  deadline.unref();

  log(`machine: ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}`);
  const chainUrl = await startChainProcess();
  log(`local chain (own process): ${chainUrl}`);

  const ourFeePayer = randomKeypair();
  const refFeePayer = randomKeypair();
  await fundFromFaucet(chainUrl, ourFeePayer.address, FEE_PAYER_LAMPORTS);
  await fundFromFaucet(chainUrl, refFeePayer.address, FEE_PAYER_LAMPORTS);

  let worker: RunningWorker = await startWorker({ rpcUrl: chainUrl, feePayerSecretKeyBase58: ourFeePayer.secretKeyBase58, vars: BENCH_VARS });
  let stopWorker = worker.stop;
  cleanups.push(() => stopWorker());
  const viaProxyApi = `${worker.url}/api/v1/facilitator`;
  let api = `${worker.directUrl ?? worker.url}/api/v1/facilitator`;
  log(`our facilitator (Worker in workerd, started by wrangler): ${api}${worker.directUrl ? ` (direct); via wrangler's dev proxy: ${viaProxyApi}` : ""}`);

  // One seller vault for both sides, activated by the seller (a 0.25 USDC payment is below the just-in-time
  // provisioning minimum); enrich through our Worker; the reference is told its own fee payer.
  const seller = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(chainUrl, seller.address, 1_000_000_000);
  await activateSellerVault({ facilitatorApi: api, rpcUrl: chainUrl, seller, asset: "USDC" });
  const ourLine = await enrichLine(api, seller.address);
  const refLine: PaymentRequirements = { ...ourLine, extra: { ...ourLine.extra, feePayer: refFeePayer.address } };

  const refTimings = new AsyncLocalStorage<Interval[]>();
  const refSigner = instrumentSigner(
    toFacilitatorSvmSigner(await createKeyPairSignerFromBytes(refFeePayer.secretKey), { defaultRpcUrl: chainUrl }),
    refTimings,
  );
  const reference = new x402Facilitator().register(DEVNET, new ExactSvmFacilitatorScheme(refSigner));
  log(`reference facilitator (in-process): fee payer ${refFeePayer.address}`);

  const ourBuyers = await fundedBuyers(chainUrl, BUYERS_PER_SIDE);
  const refBuyers = await fundedBuyers(chainUrl, BUYERS_PER_SIDE);
  const makeOurs = paymentFactory(chainUrl, ourBuyers, ourLine);
  const makeRefs = paymentFactory(chainUrl, refBuyers, refLine);

  const ours = (base: string) => ({
    verify: (p: PaymentPayload) => postPayment(base, "verify", p, ourLine),
    settle: (p: PaymentPayload) => postPayment(base, "settle", p, ourLine),
  });
  const refs = {
    verify: async (p: PaymentPayload) => outcome(await reference.verify(p, refLine)),
    settle: async (p: PaymentPayload) => outcome(await reference.settle(p, refLine)),
  };

  // Warm-up (not measured): isolates, caches and both fee payers' first transactions.
  const warmOurs = await makeOurs(WARMUP_PAYMENTS);
  const warmRefs = await makeRefs(WARMUP_PAYMENTS);
  await mustSucceed("warm-up settle (ours)", await runPhase(warmOurs.slice(0, 1), 1, ours(api).settle));
  await mustSucceed("warm-up verify (ours)", await runPhase(warmOurs.slice(1), 4, ours(api).verify));
  await mustSucceed("warm-up verify (ours, via proxy)", await runPhase(warmOurs.slice(1), 4, ours(viaProxyApi).verify));
  await mustSucceed("warm-up settle (ours)", await runPhase(warmOurs.slice(1), 4, ours(api).settle));
  await mustSucceed("warm-up verify (reference)", await runPhase(warmRefs, 4, refs.verify));
  await mustSucceed("warm-up settle (reference)", await runPhase(warmRefs, 4, refs.settle));
  const [vaultAta] = await findAssociatedTokenPda({ owner: ourLine.payTo as never, mint: USDC as never, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const vaultBefore = (await tokenAccountBalance(chainUrl, vaultAta)) ?? 0n;

  // Throughput: distinct pre-signed payments, built right before each round (a blockhash lives ~60 s).
  const withProxyRun = worker.directUrl !== null;
  const throughput: Record<Side, { verify: PhaseResult[]; settle: PhaseResult[] }> = {
    ours: { verify: [], settle: [] },
    oursViaProxy: { verify: [], settle: [] },
    reference: { verify: [], settle: [] },
  };
  let settledCount = 0n;
  // Round 0 warms every path (V8 in the chain process, workerd and here) and is not reported.
  for (let round = 0; round <= ROUNDS; round++) {
    log(
      round === 0
        ? `warm-up round (not reported): ${WARMUP_ROUND_PAYMENTS} payments per side`
        : `round ${round}/${ROUNDS}: building ${PAYMENTS_PER_SIDE} payments per side with the official client, then verify and settle each at concurrency ${CONCURRENCY}...`,
    );
    const perSide = round === 0 ? WARMUP_ROUND_PAYMENTS : PAYMENTS_PER_SIDE;
    const batches: [Side, PaymentPayload[], { verify: (p: PaymentPayload) => Promise<string | null>; settle: (p: PaymentPayload) => Promise<string | null> }][] = [
      ["ours", await makeOurs(perSide), ours(api)],
      ...(withProxyRun ? [["oursViaProxy", await makeOurs(perSide), ours(viaProxyApi)] as [Side, PaymentPayload[], ReturnType<typeof ours>]] : []),
      ["reference", await makeRefs(perSide), refs],
    ];
    // Alternate which side goes first from round to round.
    if (round % 2 === 0) batches.reverse();
    for (const [side, payments, calls] of batches) {
      const phase = await runPhase(payments, CONCURRENCY, calls.verify);
      if (round === 0) await mustSucceed(`warm-up verify (${side})`, phase);
      else throughput[side].verify.push(phase);
    }
    for (const [side, payments, calls] of batches) {
      const phase = await runPhase(payments, CONCURRENCY, calls.settle);
      if (round === 0) await mustSucceed(`warm-up settle (${side})`, phase);
      else throughput[side].settle.push(phase);
      settledCount += BigInt(phase.count - phase.failures);
    }
  }
  const vaultAfter = (await tokenAccountBalance(chainUrl, vaultAta)) ?? 0n;

  // Own time: the same Worker code behind a bench-only wrapper that reports Server-Timing (RPC, D1, rest).
  await stopWorker();
  worker = await startWorker({ rpcUrl: chainUrl, feePayerSecretKeyBase58: ourFeePayer.secretKeyBase58, entrypoint: "bench/instrumented-worker.ts", vars: BENCH_VARS });
  stopWorker = worker.stop;
  api = `${worker.directUrl ?? worker.url}/api/v1/facilitator`;
  log(`profile: instrumented Worker ${api}; ${PROFILE_PAYMENTS} serial verifies and settles per side...`);
  const warmProfile = await makeOurs(3);
  await mustSucceed("profile warm-up", await runPhase(warmProfile, 1, ours(api).verify));
  await mustSucceed("profile warm-up", await runPhase(warmProfile, 1, ours(api).settle));
  const profileOurs = await makeOurs(PROFILE_PAYMENTS);
  const profileRefs = await makeRefs(PROFILE_PAYMENTS);
  const ourProfile = { verify: [] as Breakdown[], settle: [] as Breakdown[] };
  const refProfile = { verify: [] as Breakdown[], settle: [] as Breakdown[] };
  for (const kind of ["verify", "settle"] as const) {
    for (const payment of profileOurs) ourProfile[kind].push(await timedOurs(api, kind, payment, ourLine));
    for (const payment of profileRefs) {
      refProfile[kind].push(await timedReference(refTimings, () => (kind === "verify" ? reference.verify(payment, refLine) : reference.settle(payment, refLine))));
    }
  }

  // Experiment: the same instrumented Worker with and without the per-request audit row (payment_attempts);
  // verify is stateless, so the same payments serve every run; the two variants alternate.
  log(`experiment: verify x${PAYMENTS_PER_SIDE} at concurrency ${CONCURRENCY} with and without the audit row, ${EXPERIMENT_ROUNDS} runs each...`);
  const experimentPayments = await makeOurs(PAYMENTS_PER_SIDE);
  const withAudit: PhaseResult[] = [];
  const withoutAudit: PhaseResult[] = [];
  for (let run = 0; run < EXPERIMENT_ROUNDS; run++) {
    withAudit.push(await runPhase(experimentPayments, CONCURRENCY, (p) => postPayment(api, "verify", p, ourLine)));
    withoutAudit.push(await runPhase(experimentPayments, CONCURRENCY, (p) => postPayment(api, "verify", p, ourLine, { "X-Bench-Skip-Audit": "1" })));
  }

  printResults({ throughput, direct: worker.directUrl !== null, ourProfile, refProfile, experiment: { withAudit, withoutAudit } });
  const expected = settledCount * PRICE_RAW;
  log(`sanity: the vault received ${vaultAfter - vaultBefore} raw units in the throughput phase; ${settledCount} successful settles x ${PRICE_RAW} = ${expected} ${vaultAfter - vaultBefore === expected ? "(match)" : "(MISMATCH)"}`);
  log(`bench took ${fmt((performance.now() - benchStarted) / 1000)} s`);
  printMethod();
}

// ---------------------------------------------------------------------------------------------------------------
// Parties

async function startChainProcess(): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench/chain-process.ts")], {
    cwd: ROOT,
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
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the local chain process did not start within 30 s")), 30_000);
    child.once("exit", (code) => reject(new Error(`the local chain process exited (${code})`)));
    lines.once("line", (line) => {
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { url: string }).url);
      } catch {
        reject(new Error(`unexpected output from the chain process: ${line}`));
      }
    });
  });
}

async function enrichLine(api: string, sellerWallet: string): Promise<PaymentRequirements> {
  const response = await fetch(`${api}/payment-required/enrich`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      x402Version: 2,
      resource: RESOURCE,
      accepts: [{ scheme: "exact", network: DEVNET, asset: USDC, amount: PRICE_RAW.toString(), payTo: sellerWallet, maxTimeoutSeconds: 60, extra: {} }],
    }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`enrich answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
}

async function fundedBuyers(chainUrl: string, count: number): Promise<KeyPairSigner[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
      await fundFromFaucet(chainUrl, buyer.address, 10_000_000, BUYER_USDC_RAW);
      return buyer;
    }),
  );
}

/** Distinct payments made by the official client, round-robin over the buyers (each carries a random memo nonce). */
function paymentFactory(chainUrl: string, buyers: KeyPairSigner[], requirements: PaymentRequirements) {
  const schemes = buyers.map((buyer) => new ExactSvmClientScheme(buyer, { rpcUrl: chainUrl }));
  return async (count: number): Promise<PaymentPayload[]> => {
    const payments: PaymentPayload[] = new Array(count);
    const built = await runPhase(
      Array.from({ length: count }, (_, i) => i),
      CONCURRENCY,
      async (i) => {
        const partial = await schemes[i % schemes.length]!.createPaymentPayload(2, requirements);
        payments[i] = { x402Version: 2, resource: RESOURCE, accepted: requirements, payload: partial.payload };
        return null;
      },
    );
    if (built.failures > 0) throw new Error(`building payments failed: ${built.failureSamples.join("; ")}`);
    return payments;
  };
}

/** POST /verify or /settle with the x402 v2 body; null on success, else the reason. */
async function postPayment(
  api: string,
  kind: "verify" | "settle",
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  headers: Record<string, string> = {},
): Promise<string | null> {
  const response = await fetch(`${api}/${kind}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ x402Version: 2, paymentPayload: payment, paymentRequirements: requirements }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { isValid?: boolean; success?: boolean; invalidReason?: string; errorReason?: string; invalidMessage?: string; errorMessage?: string };
  const ok = kind === "verify" ? body.isValid === true : body.success === true;
  return ok ? null : `HTTP ${response.status} ${body.invalidReason ?? body.errorReason}: ${body.invalidMessage ?? body.errorMessage ?? ""}`;
}

function outcome(result: { isValid?: boolean; success?: boolean; invalidReason?: string; errorReason?: string; invalidMessage?: string; errorMessage?: string }): string | null {
  if (result.isValid === true || result.success === true) return null;
  return `${result.invalidReason ?? result.errorReason}: ${result.invalidMessage ?? result.errorMessage ?? ""}`;
}

async function mustSucceed(label: string, phase: PhaseResult): Promise<void> {
  if (phase.failures > 0) throw new Error(`${label}: ${phase.failures} of ${phase.count} failed: ${phase.failureSamples.join("; ")}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Own-time measurement

interface Breakdown {
  /** Latency seen by the caller. */
  latencyMs: number;
  /** Inside the facilitator: handler wall time (ours: Server-Timing total; reference: the call itself). */
  handlerMs: number;
  rpcMs: number;
  rpcCalls: number;
  d1Ms: number;
  d1Calls: number;
  /** handler − (RPC ∪ D1): parsing, rules, signing, hashing, JSON. */
  cpuMs: number;
}

async function timedOurs(api: string, kind: "verify" | "settle", payment: PaymentPayload, requirements: PaymentRequirements): Promise<Breakdown> {
  const body = JSON.stringify({ x402Version: 2, paymentPayload: payment, paymentRequirements: requirements });
  const t0 = performance.now();
  const response = await fetch(`${api}/${kind}`, { method: "POST", headers: { "Content-Type": "application/json" }, body, signal: AbortSignal.timeout(30_000) });
  const json = (await response.json()) as { isValid?: boolean; success?: boolean; invalidReason?: string; errorReason?: string };
  const latencyMs = performance.now() - t0;
  if (json.isValid !== true && json.success !== true) throw new Error(`profile ${kind} failed: ${json.invalidReason ?? json.errorReason}`);
  const timing = parseServerTiming(response.headers.get("Server-Timing") ?? "");
  return {
    latencyMs,
    handlerMs: timing.total?.dur ?? Number.NaN,
    rpcMs: timing.rpc?.dur ?? Number.NaN,
    rpcCalls: Number(timing.rpc?.desc ?? Number.NaN),
    d1Ms: timing.d1?.dur ?? Number.NaN,
    d1Calls: Number(timing.d1?.desc ?? Number.NaN),
    cpuMs: timing.own?.dur ?? Number.NaN,
  };
}

async function timedReference(timings: AsyncLocalStorage<Interval[]>, call: () => Promise<{ isValid?: boolean; success?: boolean }>): Promise<Breakdown> {
  const intervals: Interval[] = [];
  const t0 = performance.now();
  const result = await timings.run(intervals, call);
  const latencyMs = performance.now() - t0;
  if (result.isValid !== true && result.success !== true) throw new Error(`reference profile call failed: ${JSON.stringify(result)}`);
  const rpcMs = unionMs(intervals);
  return { latencyMs, handlerMs: latencyMs, rpcMs, rpcCalls: intervals.length, d1Ms: 0, d1Calls: 0, cpuMs: Math.max(0, latencyMs - rpcMs) };
}

/** The reference's signer port is where all its chain I/O happens: time every RPC-bound method. */
function instrumentSigner(signer: FacilitatorSvmSigner, timings: AsyncLocalStorage<Interval[]>): FacilitatorSvmSigner {
  const rpcBound = [
    "simulateTransaction",
    "sendTransaction",
    "confirmTransaction",
    "simulateTransactionWithInnerInstructions",
    "getConfirmedTransactionInnerInstructions",
    "getTokenAccountBalance",
    "fetchAddressLookupTables",
    "getAccountInfo",
    "getLatestBlockhash",
    "getSlot",
    "getProgramAccounts",
  ] as const;
  const wrapped: FacilitatorSvmSigner = { ...signer };
  for (const name of rpcBound) {
    const original = signer[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (!original) continue;
    (wrapped as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const start = performance.now();
      try {
        return await original.apply(signer, args);
      } finally {
        timings.getStore()?.push({ start, end: performance.now() });
      }
    };
  }
  return wrapped;
}

function parseServerTiming(header: string): Record<string, { dur?: number; desc?: string }> {
  const out: Record<string, { dur?: number; desc?: string }> = {};
  for (const entry of header.split(",")) {
    const [name, ...params] = entry.trim().split(";");
    if (!name) continue;
    const metric: { dur?: number; desc?: string } = {};
    for (const param of params) {
      const [key, raw] = param.trim().split("=");
      if (key === "dur") metric.dur = Number(raw);
      if (key === "desc") metric.desc = raw?.replace(/^"|"$/g, "");
    }
    out[name] = metric;
  }
  return out;
}

function unionMs(intervals: Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let start = -1;
  let end = -1;
  for (const interval of sorted) {
    if (interval.start > end) {
      if (end > start) total += end - start;
      start = interval.start;
      end = interval.end;
    } else if (interval.end > end) end = interval.end;
  }
  if (end > start) total += end - start;
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Report

function printResults(r: {
  throughput: Record<Side, { verify: PhaseResult[]; settle: PhaseResult[] }>;
  direct: boolean;
  ourProfile: { verify: Breakdown[]; settle: Breakdown[] };
  refProfile: { verify: Breakdown[]; settle: Breakdown[] };
  experiment: { withAudit: PhaseResult[]; withoutAudit: PhaseResult[] };
}): void {
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${fmt(a / b, 2)}x` : "n/a");
  const row = (label: string, ours: number, ref: number, digits = 1) => [label, fmt(ours, digits), fmt(ref, digits), ratio(ours, ref)];
  const p = (values: number[], q: number) => percentile(values, q);
  const pick = (list: Breakdown[], key: keyof Breakdown) => list.map((b) => b[key]);
  const tput = (phases: PhaseResult[]) => median(phases.map((phase) => phase.throughputPerSecond));
  const lat = (phases: PhaseResult[]) => phases.flatMap((phase) => phase.latenciesMs);
  const { ours, oursViaProxy, reference } = r.throughput;

  const rows: string[][] = [
    row(`verify throughput (payments/s, c=${CONCURRENCY}, median of ${ROUNDS})`, tput(ours.verify), tput(reference.verify)),
    row("verify latency p50 (ms)", p(lat(ours.verify), 50), p(lat(reference.verify), 50), 2),
    row("verify latency p95 (ms)", p(lat(ours.verify), 95), p(lat(reference.verify), 95), 2),
    row(`settle throughput (payments/s, c=${CONCURRENCY}, median of ${ROUNDS})`, tput(ours.settle), tput(reference.settle)),
    row("settle latency p50 (ms)", p(lat(ours.settle), 50), p(lat(reference.settle), 50), 2),
    row("settle latency p95 (ms)", p(lat(ours.settle), 95), p(lat(reference.settle), 95), 2),
    ...(oursViaProxy.verify.length > 0
      ? [
          ["ours through wrangler's dev proxy (as npm start):", "", "", ""],
          row("  verify throughput (payments/s)", tput(oursViaProxy.verify), tput(reference.verify)),
          row("  verify latency p50 (ms)", p(lat(oursViaProxy.verify), 50), p(lat(reference.verify), 50), 2),
          row("  settle throughput (payments/s)", tput(oursViaProxy.settle), tput(reference.settle)),
          row("  settle latency p50 (ms)", p(lat(oursViaProxy.settle), 50), p(lat(reference.settle), 50), 2),
        ]
      : []),
    ["", "", "", ""],
    row("serial settle latency p50 (ms)", p(pick(r.ourProfile.settle, "latencyMs"), 50), p(pick(r.refProfile.settle, "latencyMs"), 50), 2),
    row("  inside the facilitator, mean (ms)", mean(pick(r.ourProfile.settle, "handlerMs")), mean(pick(r.refProfile.settle, "handlerMs")), 2),
    row("  chain RPC, mean (ms)", mean(pick(r.ourProfile.settle, "rpcMs")), mean(pick(r.refProfile.settle, "rpcMs")), 2),
    row("  RPC calls per settle", mean(pick(r.ourProfile.settle, "rpcCalls")), mean(pick(r.refProfile.settle, "rpcCalls")), 1),
    row("  D1 on the response path, mean (ms)", mean(pick(r.ourProfile.settle, "d1Ms")), 0, 2),
    row("  D1 queries on the response path", mean(pick(r.ourProfile.settle, "d1Calls")), 0, 1),
    row("own time in settle excl. RPC, p50 (ms)", p(ownExclRpc(r.ourProfile.settle), 50), p(ownExclRpc(r.refProfile.settle), 50), 2),
    row("own time in settle excl. RPC, mean (ms)", mean(ownExclRpc(r.ourProfile.settle)), mean(ownExclRpc(r.refProfile.settle)), 2),
    row("own time in settle excl. RPC, p95 (ms)", p(ownExclRpc(r.ourProfile.settle), 95), p(ownExclRpc(r.refProfile.settle), 95), 2),
    row("  of which compute (excl. RPC and D1), mean", mean(pick(r.ourProfile.settle, "cpuMs")), mean(pick(r.refProfile.settle, "cpuMs")), 2),
    row("serial verify latency p50 (ms)", p(pick(r.ourProfile.verify, "latencyMs"), 50), p(pick(r.refProfile.verify, "latencyMs"), 50), 2),
    row("  own time in verify excl. RPC, mean (ms)", mean(ownExclRpc(r.ourProfile.verify)), mean(ownExclRpc(r.refProfile.verify)), 2),
    row("  RPC calls per verify", mean(pick(r.ourProfile.verify, "rpcCalls")), mean(pick(r.refProfile.verify, "rpcCalls")), 1),
    row(`HTTP hop to the Worker${r.direct ? "" : " + wrangler proxy"}, mean (ms)`, mean(transport(r.ourProfile.settle.concat(r.ourProfile.verify))), 0, 2),
    ["", "", "", ""],
    ["experiment (ours, instrumented entry): verify throughput", "", "", ""],
    row("  with the per-request audit row (payments/s, median)", tput(r.experiment.withAudit), tput(reference.verify)),
    row("  without it (payments/s, median)", tput(r.experiment.withoutAudit), tput(reference.verify)),
  ];
  console.log("");
  console.log(formatTable(["metric", r.direct ? "ours (Worker, HTTP direct)" : "ours (Worker, HTTP)", "reference (in-process)", "ours/ref"], rows));
  const all: [string, PhaseResult[]][] = [
    ["verify (ours)", ours.verify],
    ["settle (ours)", ours.settle],
    ["verify (ours via proxy)", oursViaProxy.verify],
    ["settle (ours via proxy)", oursViaProxy.settle],
    ["verify (reference)", reference.verify],
    ["settle (reference)", reference.settle],
    ["experiment", [...r.experiment.withAudit, ...r.experiment.withoutAudit]],
  ];
  for (const [name, phases] of all) {
    const failed = phases.reduce((sum, phase) => sum + phase.failures, 0);
    if (failed > 0) console.log(`FAILURES in ${name}: ${failed} (${phases.flatMap((phase) => phase.failureSamples).slice(0, 3).join(" | ")})`);
  }
  console.log(
    `\nper-round throughput (payments/s): ` +
      (["ours", "oursViaProxy", "reference"] as const)
        .filter((side) => r.throughput[side].verify.length > 0)
        .map((side) => `${side} verify [${r.throughput[side].verify.map((x) => fmt(x.throughputPerSecond, 0)).join(", ")}] settle [${r.throughput[side].settle.map((x) => fmt(x.throughputPerSecond, 0)).join(", ")}]`)
        .join("; "),
  );
  console.log(
    `(throughput: higher is better; latency and time: lower is better. Reference D1 = 0: it keeps no ledger. ` +
      `Times inside our Worker come from workerd's clock, which has 1 ms resolution: read the means.)`,
  );
}

function ownExclRpc(list: Breakdown[]): number[] {
  return list.map((b) => Math.max(0, b.handlerMs - b.rpcMs));
}

function transport(list: Breakdown[]): number[] {
  return list.map((b) => Math.max(0, b.latencyMs - b.handlerMs));
}

function printMethod(): void {
  console.log(`
method
- Same chain for both: the local chain (litesvm behind JSON-RPC, impersonating devnet) in its own process on 127.0.0.1.
- Same payments: each side gets ${PAYMENTS_PER_SIDE} distinct payments made and signed beforehand by the official client
  (@x402/svm ExactSvmScheme, client side): [SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked, Memo(nonce)],
  0.25 USDC into the same seller vault's token account (payTo = the enriched vault PDA), from ${BUYERS_PER_SIDE} buyers per side.
  Only extra.feePayer differs (ours vs the reference's own key), so the transactions are equivalent, not identical.
- Ours: the real Worker (src/index.ts bundled by wrangler, in workerd, local D1) over HTTP on 127.0.0.1; requests are
  plain fetch POSTs from this process. Main column: straight to the Worker's workerd socket; the "through wrangler's dev
  proxy" rows go through the extra dev-only proxy process that \`wrangler dev\` (npm start) puts in front. Reference: @x402/core x402Facilitator + @x402/svm ExactSvmScheme
  (facilitator side, toFacilitatorSvmSigner) called in-process, which is how it is used: no HTTP hop for it.
- Throughput: an unreported warm-up round (${WARMUP_ROUND_PAYMENTS} payments per side), then ${ROUNDS} rounds; per round and side ${PAYMENTS_PER_SIDE} calls at a fixed concurrency of ${CONCURRENCY},
  payments/s = count / wall time; every payment is first verified, then settled; the order of the sides alternates
  between rounds. Reported: the median round; latency percentiles pool all rounds.
- Own time in settle: ${PROFILE_PAYMENTS} serial settles (and verifies) per side on fresh payments. Ours runs the same app behind
  a bench-only entry (bench/instrumented-worker.ts) that times outbound fetch (= Solana RPC) and D1 inside the isolate
  and reports them in Server-Timing; the throughput runs use the unwrapped entry. The reference is timed by wrapping
  its signer port (every RPC-bound method). "Own time excl. RPC" = time inside the facilitator minus the union of its
  RPC round trips (ours still includes D1, which the reference does not have); "compute" also excludes D1.
  RPC round trips include the HTTP client cost of each call on both sides.
- Experiment: the instrumented entry can skip the per-request audit row (payment_attempts insert, started in
  waitUntil) on request; verify throughput with and without it shows what that write costs here.
- Caveats: ${os.cpus().length} CPU(s) shared by the chain, workerd and this process; local D1 is SQLite in-process,
  production D1 round trips are network hops; workerd here is wrangler's local runtime, not the edge.`);
}

function log(line: string): void {
  console.log(`bench: ${line}`);
}

async function cleanup(): Promise<void> {
  for (const step of cleanups.reverse()) {
    try {
      await step();
    } catch {
      // keep cleaning
    }
  }
  cleanups.length = 0;
}

process.on("SIGINT", () => void cleanup().finally(() => process.exit(130)));

main()
  .then(async () => {
    await cleanup();
    process.exit(0);
  })
  .catch(async (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup();
    process.exit(1);
  });
