/**
 * `npm run bench -- --real-timing`: both facilitators against the local chain made to behave like a cluster across the
 * network (localnet/real-timing.ts: confirmation a slot time after landing, with jitter, and a latency on every RPC
 * request and PubSub message each way). Where the local-speed bench measures the facilitators' own work, this one
 * measures what a seller waits for and what the RPC provider bills:
 * - settle p50/p95 and the time from the chain's confirmation (localnet_confirmationTimes) to the answer;
 * - RPC calls per settle and per verify, by method (the chain's request log inside each sequential call's span;
 *   `websocket` is a PubSub connection, PubSub messages count like requests);
 * - verify throughput at c=32 next to the latency bound (32 callers each waiting its RPC round trips) and next to this
 *   machine's ceiling: the same load on a Worker that only forwards the simulation (bench/ceiling-worker), since the
 *   chain, the load generator and workerd share the machine's cores where a real RPC provider would not;
 * - the same settle figures for our exact rail's just-in-time path (a seller without a vault) and our escrow rail
 *   (the reference facilitator serves neither);
 * - D1's distance: ours runs from bench/delayed-d1-worker, which holds every D1 call `dbLatencyMs` away (default 0, as
 *   on one machine) and logs it; each settle's D1 round trips are counted (awaited before the answer, of those the ones
 *   still running after the chain's confirmation, and the ones left running in the background), and a second Worker of
 *   ours with D1 `farDbLatencyMs` away (default 120 ms, a Worker on another continent than D1's primary) settles the
 *   same kind of payment, so one run shows what the distance costs.
 */
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { chainRpc, fundFromFaucet } from "../demo/chain-rpc";
import { labelledKeypair, randomKeypair } from "../scripts/lib/keypair";
import { startWorker } from "../scripts/lib/run-worker";
import { CLUSTERS } from "../src/platform/config/networks";
import {
  activatedSeller,
  BENCH_VARS,
  enrichLine,
  fundedBuyers,
  mustSucceed,
  paymentBody,
  paymentFactory,
  type SideName,
  startChild,
  startFacilitators,
} from "./bench";
import { postJsonText } from "./http-client";
import { fmt, formatTable, median, type PhaseResult, percentile, runPhase } from "./measure";
import type { ChainRequest } from "./settle-timeline";

export interface RealTimingOptions {
  slotMs: number;
  jitterMs: number;
  rpcLatencyMsEachWay: number;
  /** Sequential calls per side for the call counts and settle latencies. */
  sequential: number;
  /** Payments per side at c=32. */
  concurrentVerifies: number;
  /** Verifies and settles per side before anything is counted (half each). */
  warmupCalls: number;
  /** Every D1 call of ours is held this long before it reaches the database (the bench's build only). */
  dbLatencyMs: number;
  /** A second Worker of ours with D1 this far settles too (skipped when equal to dbLatencyMs). */
  farDbLatencyMs: number;
  /**
   * Also settle on Workers of ours with the D1 ledger (SVC_SETTLE_LEDGER=d1) at both distances: the two ledgers in one
   * run.
   */
  compareD1Ledger?: boolean;
  log?: (line: string) => void;
}

/**
 * 1,280 payments at c=32 are 40 calls per caller: the start (32 requests at once) and the drain at the end weigh about
 * 2.5% of such a run, where 320 (10 per caller) lost ~5 points of the bound to them.
 */
export const DEFAULT_REAL_TIMING_OPTIONS: RealTimingOptions = {
  slotMs: 400,
  jitterMs: 100,
  rpcLatencyMsEachWay: 40,
  sequential: 20,
  concurrentVerifies: 1_280,
  warmupCalls: 20,
  dbLatencyMs: 0,
  farDbLatencyMs: 120,
};

const CEILING_WORKER = "bench/ceiling-worker/index.ts";
const DELAYED_D1_WORKER = "bench/delayed-d1-worker/index.ts";

const VERIFY_CONCURRENCY = 32;
/** The facilitator fronts a vault only for a payment of at least 1 USDC (its default jit minimum). */
const JUST_IN_TIME_PRICE_RAW = 1_000_000n;

/** One kind of sequential call, measured. */
export interface SequentialFigures {
  label: string;
  latenciesMs: number[];
  /** Answer time minus the chain's confirmation time, per settle (empty for verifies). */
  afterConfirmationMs: number[];
  /** Mean calls per call of each method. */
  rpcCallsByMethod: Record<string, number>;
  /** Mean D1 round trips per call (ours only: the delayed-D1 entry logs them), null for the reference. */
  d1: D1RoundTrips | null;
}

/** D1 round trips per call, by where they fall against the call's answer and the chain's confirmation. */
export interface D1RoundTrips {
  /** Finished before the answer was received: the caller waited for them. */
  awaited: number;
  /** Of the awaited ones, those still running after the chain confirmed the payment. */
  afterConfirmation: number;
  /** Started during the call but finished after its answer (work kept alive after the response). */
  background: number;
}

export interface RealTimingResult {
  rows: string[][];
  table: string;
  figures: Record<SideName, SequentialFigures[]>;
  verifyThroughput: Record<SideName, number>;
  latencyBound: Record<SideName, number>;
  /** /verify req/s at c=32 of a Worker that only forwards the simulation, on the same machine and chain. */
  ceilingThroughput: number;
}

interface RealParty {
  name: SideName;
  api: string;
  line: PaymentRequirements;
  makePayments(count: number): Promise<PaymentPayload[]>;
}

export async function runRealTimingBench(options: RealTimingOptions): Promise<RealTimingResult> {
  const log = options.log ?? (() => {});
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const chain = (
      await startChild(
        "bench/chain-process.ts",
        {
          LOCALNET_SLOT_MS: String(options.slotMs),
          LOCALNET_SLOT_JITTER_MS: String(options.jitterMs),
          LOCALNET_RPC_LATENCY_MS: String(options.rpcLatencyMsEachWay),
        },
        cleanups,
      )
    ).url;
    log(
      `local chain with real timing: ` +
        `confirmation ${options.slotMs} ± ${options.jitterMs} ms after landing, RPC ` +
        `latency ${options.rpcLatencyMsEachWay} ms each way (${chain})`,
    );
    const { api, reference, refFeePayer } = await startFacilitators(chain, cleanups, {
      entrypoint: DELAYED_D1_WORKER,
      vars: { BENCH_DB_LATENCY_MS: String(options.dbLatencyMs) },
    });
    log(`ours: D1 held ${options.dbLatencyMs} ms away (bench/delayed-d1-worker)`);

    const sellerWallet = await activatedSeller(api, chain);
    const ourLine = await enrichLine(api, sellerWallet);
    const refLine: PaymentRequirements = { ...ourLine, extra: { ...ourLine.extra, feePayer: refFeePayer.address } };
    const buyers = await fundedBuyers(chain, 8);
    const parties: RealParty[] = [
      { name: "ours", api, line: ourLine, makePayments: paymentFactory(chain, buyers, ourLine) },
      { name: "reference", api: reference.url, line: refLine, makePayments: paymentFactory(chain, buyers, refLine) },
    ];

    const figures: Record<SideName, SequentialFigures[]> = { ours: [], reference: [] };
    const verifyThroughput = {} as Record<SideName, number>;
    for (const party of parties) {
      // Warm both sides (JITs, connection pools, the Worker's cached mint and program facts) before counting.
      const half = Math.ceil(options.warmupCalls / 2);
      const warm = await party.makePayments(2 * half);
      mustSucceed(
        `warm-up (${party.name})`,
        await runPhase(warm.slice(0, half), 4, (p) =>
          call(party.api, "verify", paymentBody(p, party.line)).then((a) => a.failure),
        ),
      );
      mustSucceed(
        `warm-up settle (${party.name})`,
        await runPhase(warm.slice(half), 1, (p) =>
          call(party.api, "settle", paymentBody(p, party.line)).then((a) => a.failure),
        ),
      );

      log(
        `${party.name}: ${options.sequential} sequential verifies, ` +
          `then ${options.concurrentVerifies} at ` +
          `c=${VERIFY_CONCURRENCY}, then ${options.sequential} sequential settles`,
      );
      const verifies = await party.makePayments(options.sequential);
      const d1Origin = party.name === "ours" ? workerOrigin(party.api) : null;
      figures[party.name].push(
        await sequential(
          chain,
          party.api,
          "verify",
          verifies.map((p) => paymentBody(p, party.line)),
          "verify",
          d1Origin,
        ),
      );
      verifyThroughput[party.name] = await concurrentVerifyThroughput(party.api, party, options, party.name);
      const settles = await party.makePayments(options.sequential);
      figures[party.name].push(
        await sequential(
          chain,
          party.api,
          "settle",
          settles.map((p) => paymentBody(p, party.line)),
          "settle (vault exists)",
          d1Origin,
        ),
      );
    }

    log(
      `ceiling: ${options.concurrentVerifies} verifies at ` +
        `c=${VERIFY_CONCURRENCY} on a Worker that only forwards the simulation`,
    );
    const ceilingThroughput = await ceilingVerifyThroughput(chain, parties[0]!, options, cleanups);

    log(
      `ours: ${options.sequential} just-in-time settles (each to a seller without a ` +
        `vault), ${options.sequential} escrow fundings`,
    );
    const ourOrigin = workerOrigin(api);
    figures.ours.push(
      await sequential(
        chain,
        api,
        "settle",
        await justInTimeBodies(api, chain, buyers, options.sequential),
        "settle, just-in-time vault",
        ourOrigin,
      ),
    );
    figures.ours.push(
      await sequential(
        chain,
        api,
        "settle",
        await escrowBodies(api, chain, sellerWallet, options.sequential),
        "settle, sla-escrow funding",
        ourOrigin,
      ),
    );
    if (options.farDbLatencyMs !== options.dbLatencyMs) {
      log(`ours with D1 ${options.farDbLatencyMs} ms away: ${options.sequential} sequential settles (vault exists)`);
      figures.ours.push(await farDatabaseSettles(chain, buyers, options, cleanups, options.farDbLatencyMs));
    }
    if (options.compareD1Ledger) {
      for (const latencyMs of new Set([options.dbLatencyMs, options.farDbLatencyMs])) {
        log(
          `ours with the D1 ledger, D1 ${latencyMs} ms away: ${options.sequential} sequential settles (vault exists)`,
        );
        figures.ours.push(await farDatabaseSettles(chain, buyers, options, cleanups, latencyMs, "d1"));
      }
    }

    // Each verify waits its RPC round trips; with nothing serialised, c callers finish c calls per that wait.
    const verifyCalls = (side: SideName) =>
      Object.values(figures[side][0]!.rpcCallsByMethod).reduce((a, b) => a + b, 0);
    const roundTripMs = 2 * options.rpcLatencyMsEachWay;
    const latencyBound = {
      ours: (VERIFY_CONCURRENCY * 1000) / (Math.max(1, verifyCalls("ours")) * roundTripMs),
      reference: (VERIFY_CONCURRENCY * 1000) / (Math.max(1, verifyCalls("reference")) * roundTripMs),
    };
    const rows = report(figures, verifyThroughput, latencyBound, ceilingThroughput);
    return {
      rows,
      table: `${formatTable(["", "ours", "reference"], rows)}\n\n${describeAllCalls(figures)}`,
      figures,
      verifyThroughput,
      latencyBound,
      ceilingThroughput,
    };
  } finally {
    for (const step of cleanups.reverse()) await step().catch(() => {});
  }
}

/** The origin of a Worker whose API root is `${origin}/api/v1/facilitator`. */
function workerOrigin(api: string): string {
  return new URL(api).origin;
}

/**
 * Settles (vault exists) on another Worker of ours whose D1 is `latencyMs` away (its settle ledger's objects stay near
 * it), with the deployment's ledger or the D1 one: its own fee payer and activated seller on the same chain, warmed
 * with a few settles first.
 */
async function farDatabaseSettles(
  chain: string,
  buyers: KeyPairSigner[],
  options: RealTimingOptions,
  cleanups: (() => Promise<void>)[],
  latencyMs: number,
  ledger?: "d1",
): Promise<SequentialFigures> {
  const feePayer = randomKeypair();
  await fundFromFaucet(chain, feePayer.address, 1_000_000_000_000);
  const worker = await startWorker({
    rpcUrl: chain,
    feePayerSecretKeyBase58: feePayer.secretKeyBase58,
    entrypoint: DELAYED_D1_WORKER,
    vars: { ...BENCH_VARS, BENCH_DB_LATENCY_MS: String(latencyMs), ...(ledger ? { SVC_SETTLE_LEDGER: ledger } : {}) },
  });
  cleanups.push(worker.stop);
  const api = `${worker.url}/api/v1/facilitator`;
  const line = await enrichLine(api, await activatedSeller(api, chain));
  const payments = paymentFactory(chain, buyers, line);
  const warm = await payments(Math.max(1, Math.ceil(options.warmupCalls / 2)));
  mustSucceed(
    "warm-up settle (far D1)",
    await runPhase(warm, 1, (p) => call(api, "settle", paymentBody(p, line)).then((a) => a.failure)),
  );
  const bodies = (await payments(options.sequential)).map((p) => paymentBody(p, line));
  const label = `settle (vault exists)${ledger ? ", D1 ledger" : ""}, D1 ${latencyMs} ms away`;
  return sequential(chain, api, "settle", bodies, label, worker.url);
}

/**
 * The c=32 verify phase against bench/ceiling-worker, with fresh payments of ours' line (it checks nothing, the chain
 * does).
 */
async function ceilingVerifyThroughput(
  chain: string,
  party: RealParty,
  options: RealTimingOptions,
  cleanups: (() => Promise<void>)[],
): Promise<number> {
  const worker = await startWorker({
    rpcUrl: chain,
    feePayerSecretKeyBase58: randomKeypair().secretKeyBase58,
    entrypoint: CEILING_WORKER,
    logLevel: "none",
  });
  cleanups.push(worker.stop);
  const throughput = await concurrentVerifyThroughput(worker.url, party, options, "ceiling");
  await worker.stop();
  return throughput;
}

/**
 * Verify req/s at c=32 with fresh payments of the party's line. A quarter as many calls at c=32 come first, unmeasured,
 * so every side is measured at its steady state (optimised code, pools and caches at that concurrency).
 */
async function concurrentVerifyThroughput(
  api: string,
  party: RealParty,
  options: RealTimingOptions,
  label: string,
): Promise<number> {
  const warmupCount = Math.ceil(options.concurrentVerifies / 4);
  const bodies = (await party.makePayments(warmupCount + options.concurrentVerifies)).map((p) =>
    paymentBody(p, party.line),
  );
  const verifyAll = (part: string[]) =>
    runPhase(part, VERIFY_CONCURRENCY, (body) => call(api, "verify", body).then((a) => a.failure));
  mustSucceed(`warm-up at c=${VERIFY_CONCURRENCY} (${label})`, await verifyAll(bodies.slice(0, warmupCount)));
  const phase = await verifyAll(bodies.slice(warmupCount));
  mustSucceed(`verify c=${VERIFY_CONCURRENCY} (${label})`, phase);
  return phase.throughputPerSecond;
}

function report(
  figures: Record<SideName, SequentialFigures[]>,
  throughput: Record<SideName, number>,
  bound: Record<SideName, number>,
  ceiling: number,
): string[][] {
  const rows: string[][] = [];
  const find = (side: SideName, label: string) => figures[side].find((f) => f.label === label);
  const cell = (f: SequentialFigures | undefined, value: (f: SequentialFigures) => string) =>
    f === undefined ? "-" : value(f);
  const labels = [...new Set([...figures.ours, ...figures.reference].map((f) => f.label))];
  for (const label of labels) {
    const ours = find("ours", label);
    const ref = find("reference", label);
    rows.push([
      `${label}: p50 / p95 ms`,
      cell(ours, (f) => `${fmt(median(f.latenciesMs))} / ${fmt(percentile(f.latenciesMs, 95))}`),
      cell(ref, (f) => `${fmt(median(f.latenciesMs))} / ${fmt(percentile(f.latenciesMs, 95))}`),
    ]);
    if (label !== "verify") {
      const after = (f: SequentialFigures) =>
        `${fmt(median(f.afterConfirmationMs))} / ${fmt(percentile(f.afterConfirmationMs, 95))}`;
      rows.push([`${label}: answer after confirmation p50 / p95 ms`, cell(ours, after), cell(ref, after)]);
    }
    rows.push([
      `${label}: RPC calls per call`,
      cell(ours, (f) => fmt(totalCalls(f), 2)),
      cell(ref, (f) => fmt(totalCalls(f), 2)),
    ]);
    const d1 = (f: SequentialFigures) =>
      f.d1 ? `${fmt(f.d1.awaited, 2)} / ${fmt(f.d1.afterConfirmation, 2)} / ${fmt(f.d1.background, 2)}` : "-";
    if (ours?.d1)
      rows.push([
        `${label}: D1 round trips per call, awaited / after confirmation / background`,
        d1(ours),
        cell(ref, d1),
      ]);
  }
  rows.push([
    `/verify req/s at c=${VERIFY_CONCURRENCY} (latency bound)`,
    `${fmt(throughput.ours)} (${fmt(bound.ours)}, ${fmt((100 * throughput.ours) / bound.ours, 0)}%)`,
    `${fmt(throughput.reference)} (${fmt(bound.reference)}, ` +
      `${fmt((100 * throughput.reference) / bound.reference, 0)}%)`,
  ]);
  const shareOfCeiling = (side: SideName) => `${fmt((100 * throughput[side]) / ceiling, 0)}%`;
  rows.push([
    `/verify req/s at c=${VERIFY_CONCURRENCY}: a forward-only Worker (this machine's ceiling)`,
    `${fmt(ceiling)} (${fmt((100 * ceiling) / bound.ours, 0)}% of the bound)`,
    "",
  ]);
  rows.push([
    `/verify at c=${VERIFY_CONCURRENCY}: share of the ceiling`,
    shareOfCeiling("ours"),
    shareOfCeiling("reference"),
  ]);
  return rows;
}

function totalCalls(f: SequentialFigures): number {
  return Object.values(f.rpcCallsByMethod).reduce((sum, n) => sum + n, 0);
}

/** One line per side and kind of call: the mean RPC calls of each method. */
function describeAllCalls(figures: Record<SideName, SequentialFigures[]>): string {
  const lines = ["RPC calls per call, by method (mean):"];
  for (const side of Object.keys(figures) as SideName[]) {
    for (const f of figures[side]) {
      const entries = Object.entries(f.rpcCallsByMethod).sort((a, b) => b[1] - a[1]);
      lines.push(`  ${side}, ${f.label}: ${entries.map(([method, n]) => `${method} ${fmt(n, 2)}`).join(", ")}`);
    }
  }
  return lines.join("\n");
}

interface Answer {
  failure: string | null;
  transaction: string | null;
  answeredAtMs: number;
}

async function call(api: string, kind: "verify" | "settle", body: string): Promise<Answer> {
  const response = await postJsonText(`${api}/${kind}`, body);
  const answeredAtMs = performance.timeOrigin + performance.now();
  let answer: {
    isValid?: boolean;
    success?: boolean;
    transaction?: string;
    invalidReason?: string;
    errorReason?: string;
    invalidMessage?: string;
    errorMessage?: string;
  };
  try {
    answer = JSON.parse(response.text) as typeof answer;
  } catch {
    return { failure: `HTTP ${response.status}, not JSON`, transaction: null, answeredAtMs };
  }
  const ok = kind === "verify" ? answer.isValid === true : answer.success === true;
  const failure = ok
    ? null
    : `HTTP ${response.status} ${answer.invalidReason ?? answer.errorReason}: ` +
      `${answer.invalidMessage ?? answer.errorMessage ?? ""}`;
  return { failure, transaction: answer.transaction ?? null, answeredAtMs };
}

/**
 * Sequential calls; each one's RPC calls are the chain's requests that arrived inside its span. With `d1Origin` (a
 * Worker running bench/delayed-d1-worker), each call's D1 round trips are read from that Worker's log too.
 */
async function sequential(
  chain: string,
  api: string,
  kind: "verify" | "settle",
  bodies: string[],
  label: string,
  d1Origin: string | null = null,
): Promise<SequentialFigures> {
  const answers: Answer[] = [];
  const phase: PhaseResult = await runPhase(bodies, 1, async (body) => {
    const answer = await call(api, kind, body);
    answers.push(answer);
    return answer.failure;
  });
  mustSucceed(label, phase);
  const chainLog = await chainRpc<ChainRequest[]>(chain, "localnet_requestLog", [phase.callSpansMs[0]![0]]);
  const counts: Record<string, number> = {};
  for (const [startMs, endMs] of phase.callSpansMs) {
    for (const request of chainLog) {
      if (request.receivedAtMs < startMs || request.receivedAtMs > endMs) continue;
      for (const method of request.methods) counts[method] = (counts[method] ?? 0) + 1;
    }
  }
  const perCall = Object.fromEntries(Object.entries(counts).map(([method, n]) => [method, n / bodies.length]));
  let afterConfirmationMs: number[] = [];
  let confirmedAt: (number | null)[] = [];
  if (kind === "settle") {
    confirmedAt = await chainRpc<(number | null)[]>(chain, "localnet_confirmationTimes", [
      answers.map((a) => a.transaction ?? ""),
    ]);
    afterConfirmationMs = answers.map((a, i) => a.answeredAtMs - (confirmedAt[i] ?? Number.NaN));
  }
  const d1 = d1Origin ? await d1RoundTrips(d1Origin, phase.callSpansMs, answers, confirmedAt) : null;
  return { label, latenciesMs: phase.latenciesMs, afterConfirmationMs, rpcCallsByMethod: perCall, d1 };
}

/**
 * Places each logged D1 call against the call whose span it started in: awaited when it ended before the answer
 * (of those, after confirmation when it was still running once the chain confirmed), else background. Work a call
 * left running is counted until the next call starts. Both clocks are this machine's wall clock.
 */
async function d1RoundTrips(
  origin: string,
  spans: [number, number][],
  answers: Answer[],
  confirmedAt: (number | null)[],
): Promise<D1RoundTrips> {
  const since = Math.floor(spans[0]![0]);
  const response = await fetch(`${origin}/__bench/d1-calls?since=${since}`);
  const log = (await response.json()) as { startMs: number; endMs: number }[];
  const totals = { awaited: 0, afterConfirmation: 0, background: 0 };
  spans.forEach(([startMs], i) => {
    const answeredAt = answers[i]!.answeredAtMs;
    const nextStart = spans[i + 1]?.[0] ?? Number.POSITIVE_INFINITY;
    const confirmed = confirmedAt[i] ?? null;
    for (const d1Call of log) {
      if (d1Call.startMs < startMs || d1Call.startMs >= nextStart) continue;
      if (d1Call.endMs <= answeredAt) {
        totals.awaited++;
        if (confirmed !== null && d1Call.endMs > confirmed) totals.afterConfirmation++;
      } else totals.background++;
    }
  });
  const n = spans.length;
  return {
    awaited: totals.awaited / n,
    afterConfirmation: totals.afterConfirmation / n,
    background: totals.background / n,
  };
}

/** One payment each to a fresh seller whose vault does not exist yet: the facilitator provisions it before sending. */
async function justInTimeBodies(api: string, chain: string, buyers: KeyPairSigner[], count: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const seller = await generateKeyPairSigner();
    const line = await enrichLine(api, seller.address, JUST_IN_TIME_PRICE_RAW);
    const [payment] = await paymentFactory(chain, [buyers[i % buyers.length]!], line)(1);
    bodies.push(paymentBody(payment!, line));
  }
  return bodies;
}

/** Buyer-paid sla-escrow fundings through our builder (the buyer signs; the facilitator only sends and confirms). */
async function escrowBodies(api: string, chain: string, sellerWallet: string, count: number): Promise<string[]> {
  const network = CLUSTERS.devnet.network;
  const enriched = await postJson<Enriched>(api, "/payment-required/enrich", {
    x402Version: 2,
    resource: { url: "https://seller.example/escrowed" },
    accepts: [
      {
        scheme: "sla-escrow",
        network,
        asset: CLUSTERS.devnet.usdcMint,
        amount: "250000",
        payTo: sellerWallet,
        maxTimeoutSeconds: 3_600,
      },
    ],
  });
  const line = enriched.accepts[0];
  const oracle = labelledKeypair("x402-facilitator/local/oracle").address;
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const buyer = await generateKeyPairSigner();
    await fundFromFaucet(chain, buyer.address, 100_000_000, 2_000_000);
    const built = await postJson<Built>(api, "/build-sla-escrow-payment-tx", {
      payer: buyer.address,
      accepted: line,
      slaHash: "ab".repeat(32),
      oracleAuthority: oracle,
    });
    const body = built.verifyBodyTemplate;
    body.paymentPayload.payload.transaction = await signBase64(built.transaction, buyer);
    bodies.push(JSON.stringify(body));
  }
  return bodies;
}

/** The parts of the facilitator's answers this bench reads. */
interface Enriched {
  accepts: unknown[];
}
interface Built {
  transaction: string;
  verifyBodyTemplate: { paymentPayload: { payload: { transaction: string } } };
}

async function postJson<Answer>(api: string, path: string, json: unknown): Promise<Answer> {
  const response = await postJsonText(api + path, JSON.stringify(json));
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text.slice(0, 300)}`);
  return JSON.parse(response.text) as Answer;
}

async function signBase64(base64: string, signer: KeyPairSigner): Promise<string> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([signer.keyPair], tx));
}
