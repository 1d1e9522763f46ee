/**
 * The `upto` part of `npm run bench` (issue 24, Measure): this facilitator next to the official reference facilitator
 * (which registers @x402/svm/upto/facilitator too), on the same chain, with deposits made by the official upto client
 * (@x402/svm/upto/client) and the settle payloads the official upto server adds (its enrichSettlementPayload: `type`,
 * and on the claim the voucher it signs with the seller's key).
 *
 * Measured per side: the deposit's /verify at c = 8 (every call a distinct channel open, read-only), the deposit's
 * /settle (sequential, the channel opens), then the claim's /settle (sequential: seal at the used amount, distribute
 * to the seller, the rest back to the buyer). Bodies are the ones the official seller middleware sends: the deposit
 * verify as the client made it, the settles with what the server adds.
 */
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { UptoSvmScheme as UptoSvmClientScheme } from "@x402/svm/upto/client";
import { UptoSvmScheme as UptoSvmServerScheme } from "@x402/svm/upto/server";
import { fundFromFaucet } from "../demo/chain-rpc";
import { CLUSTERS } from "../src/platform/config/networks";
import {
  mustSucceed,
  paymentBody,
  paymentFactory,
  postBody,
  type SideName,
  settleTimelineOf,
  syncsPerCall,
} from "./bench";
import { fmt, formatTable, median, type PhaseResult, runPhase } from "./measure";
import type { SettleTimeline } from "./settle-timeline";

const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;
const RESOURCE = { url: "http://127.0.0.1/bench/upto", description: "bench upto", mimeType: "application/json" };
/** The ceiling and what each claim charges (raw USDC units). */
export const UPTO_CEILING_RAW = 100_000n;
export const UPTO_USED_RAW = 61_234n;

export interface UptoBenchOptions {
  /** Deposit verifies per side at c = 8. */
  verifies: number;
  /** Sequential deposit settles, then as many sequential claims, per side. */
  settles: number;
  /** Deposit verifies per side before anything is measured (and two deposit + claim settles when > 0). */
  warmup: number;
  /** Deposit and claim settles per side run once more, untimed, under strace to count their disk syncs (0: none). */
  syncCountSettles?: number;
}

export interface UptoSide {
  name: SideName;
  /** Base URL of /verify and /settle. */
  api: string;
  /** The key the side signs with as fee payer (the line's `extra.feePayer`). */
  feePayer: string;
  buyers: KeyPairSigner[];
  /** The side's processes, traced for the disk-sync count. */
  pids: number[];
}

export interface UptoSideResult {
  depositVerify: PhaseResult;
  depositSettle: PhaseResult;
  claimSettle: PhaseResult;
  /** Where a sequential deposit's and claim's time goes (bench/settle-timeline.ts). */
  depositTimeline: SettleTimeline | null;
  claimTimeline: SettleTimeline | null;
  /** Disk syncs per deposit and per claim settle in the untimed strace pass; null where not counted. */
  syncsPerDeposit: number | null;
  syncsPerClaim: number | null;
}

export interface UptoBenchResult {
  ours: UptoSideResult;
  reference: UptoSideResult;
  rows: [string, string, string, string][];
  table: string;
}

export async function runUptoBench(
  chain: string,
  sides: [UptoSide, UptoSide],
  options: UptoBenchOptions,
  log: (line: string) => void,
): Promise<UptoBenchResult> {
  const seller = (await generateKeyPairSigner()).address;
  await fundFromFaucet(chain, seller, 0, 1); // the seller's token account exists, so its share is paid to it
  const voucherKey = await generateKeyPairSigner();
  const server = new UptoSvmServerScheme({ receiverAuthorizerSigner: voucherKey });
  const results = {} as Record<SideName, UptoSideResult>;
  for (const side of sides) {
    const line: PaymentRequirements = {
      scheme: "upto",
      network: DEVNET,
      asset: USDC,
      amount: UPTO_CEILING_RAW.toString(),
      payTo: seller,
      maxTimeoutSeconds: 300,
      extra: { feePayer: side.feePayer, receiverAuthorizer: voucherKey.address, withdrawDelay: 900 },
    };
    // Distinct deposits by the official upto client, each opening its own channel.
    const makeDeposits = paymentFactory(
      chain,
      side.buyers,
      line,
      (buyer, rpcUrl) => new UptoSvmClientScheme(buyer as never, { rpcUrl }) as never,
      RESOURCE,
    );
    const phases = (counts: { verifies: number; settles: number }, around?: AroundSettles) =>
      uptoPhases(side, line, server, makeDeposits, counts, around);
    // Not reported: warm both processes' upto code first, as the exact phases are warmed.
    await phases({ verifies: options.warmup, settles: options.warmup > 0 ? 2 : 0 });
    log(
      `upto ` +
        `(${side.name}): /verify ` +
        `of ${options.verifies} deposits at c=8, then ${options.settles} sequential deposit and claim settles`,
    );
    const measured = await phases(options);
    const syncs = { deposit: null as number | null, claim: null as number | null };
    if (options.syncCountSettles) {
      log(`upto (${side.name}): ${options.syncCountSettles} more deposit and claim settles under strace (untimed)`);
      await phases({ verifies: 0, settles: options.syncCountSettles }, async (kind, run) => {
        syncs[kind] = await syncsPerCall(side.pids, run);
        return null;
      });
    }
    results[side.name] = {
      ...measured,
      depositTimeline: await settleTimelineOf(chain, measured.depositSettle),
      claimTimeline: await settleTimelineOf(chain, measured.claimSettle),
      syncsPerDeposit: syncs.deposit,
      syncsPerClaim: syncs.claim,
    };
  }
  const { ours, reference } = results;
  const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${fmt(a / b, 2)}x` : "n/a");
  const row = (label: string, a: number, b: number): [string, string, string, string] => [
    label,
    fmt(a),
    fmt(b),
    ratio(a, b),
  ];
  const rows = [
    row(
      "upto deposit /verify req/s, c=8",
      ours.depositVerify.throughputPerSecond,
      reference.depositVerify.throughputPerSecond,
    ),
    row(
      "upto deposit /verify median ms, c=8",
      median(ours.depositVerify.latenciesMs),
      median(reference.depositVerify.latenciesMs),
    ),
    row(
      `upto deposit /settle median ms (${ours.depositSettle.count} sequential)`,
      median(ours.depositSettle.latenciesMs),
      median(reference.depositSettle.latenciesMs),
    ),
    row(
      `upto claim /settle median ms (${ours.claimSettle.count} sequential)`,
      median(ours.claimSettle.latenciesMs),
      median(reference.claimSettle.latenciesMs),
    ),
  ];
  return { ours, reference, rows, table: formatTable(["upto", "ours", "reference", "ratio"], rows) };
}

/** Runs a settle phase (deposit or claim) inside something else, e.g. a strace count; the phase is run by `run`. */
type AroundSettles = (kind: "deposit" | "claim", run: () => Promise<PhaseResult>) => Promise<unknown>;

/**
 * Deposit verifies at c = 8, then sequential deposit settles and the claims of those deposits; `around` wraps each
 * settle phase.
 */
async function uptoPhases(
  side: UptoSide,
  line: PaymentRequirements,
  server: UptoSvmServerScheme,
  makeDeposits: (count: number) => Promise<PaymentPayload[]>,
  options: { verifies: number; settles: number },
  around: AroundSettles = (_kind, run) => run(),
): Promise<Pick<UptoSideResult, "depositVerify" | "depositSettle" | "claimSettle">> {
  const toVerify = await makeDeposits(options.verifies);
  const depositVerify = await runPhase(
    toVerify.map((payment) => paymentBody(payment, line)),
    8,
    (body) => postBody(`${side.api}/verify`, "verify", body),
  );
  mustSucceed(`upto deposit verify (${side.name})`, depositVerify);

  const deposits = await makeDeposits(options.settles);
  const depositBodies = await Promise.all(
    deposits.map(async (payment) => paymentBody(await enriched(server, payment, line, "before-handler"), line)),
  );
  const depositSettle = await settlePhase("deposit", depositBodies);

  const claimLine: PaymentRequirements = { ...line, amount: UPTO_USED_RAW.toString() };
  const claims = await Promise.all(deposits.map((payment) => enriched(server, payment, claimLine, "after-handler")));
  const claimSettle = await settlePhase(
    "claim",
    claims.map((payment) => paymentBody(payment, claimLine)),
  );
  return { depositVerify, depositSettle, claimSettle };

  async function settlePhase(kind: "deposit" | "claim", bodies: string[]): Promise<PhaseResult> {
    let phase: PhaseResult | undefined;
    await around(kind, async () => {
      phase = await runPhase(bodies, 1, (body) => postBody(`${side.api}/settle`, "settle", body));
      mustSucceed(`upto ${kind} settle (${side.name})`, phase);
      return phase;
    });
    return phase!;
  }
}

/**
 * The payload as the official server sends it to /settle in that phase (`type`; after the handler, its voucher too).
 */
async function enriched(
  server: UptoSvmServerScheme,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  phase: "before-handler" | "after-handler",
): Promise<PaymentPayload> {
  const added = await server.enrichSettlementPayload({ phase, paymentPayload: payment, requirements } as never);
  return { ...payment, payload: { ...payment.payload, ...added } };
}
