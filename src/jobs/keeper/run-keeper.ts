import type { Instruction } from "@solana/kit";
import { getLatestBlockhash } from "../../chain/blockhash";
import { confirmAll } from "../../chain/confirm-many";
import { bookExposure, type ExposureRail, trimExposure } from "../../chain/fee-payer-budget/budget";
import { FEE_PAYER_BELOW_MINIMUM, optionalSpendingPause, type SpendingPause } from "../../chain/fee-payer-floor";
import { sendKeeperStep } from "../../chain/keeper-send";
import { LAMPORTS_PER_SIGNATURE } from "../../chain/network-fee";
import { describe } from "../../chain/transaction-errors";
import type { Config } from "../../platform/config/load-config";
import { log } from "../../platform/observability/log";
import { type KeeperOutcome, type KeeperTable, recordKeeperOutcomes } from "../../store/keeper-queue";
import { type KeeperLookOutcome, NO_KEEPER_ACTION } from "../../store/states";
import type { PaymentRejection } from "../../x402/payment-verdict";
import { afterFailedAttempt } from "./backoff";
import { KEEPER_CLAIM_MS, KEEPER_CONFIRM_POLLS } from "./budget";

/** The soonest a keeper looks at a row again when it has nothing to do with it yet. */
export const KEEPER_MIN_RECHECK_MS = 60_000;

/** A claimed row of a keeper's watch table. */
export interface KeeperRow {
  /** Consecutive checks without progress so far. */
  failures: number;
}

/** Why a row leaves the queue without a step (drop), or waits for its funding to show up (wait). */
export type KeeperGate = { kind: "drop"; why: string } | { kind: "wait"; why: string };

/** What a rail planned for one row; a rail adds its own facts (the account it read, its decision). */
export interface PlannedStep<Row extends KeeperRow> {
  row: Row;
  /** Set when the funding is not (yet) one this facilitator settled: nothing is sent for the row. */
  gate?: KeeperGate;
  /** The step cannot be taken now (counts as a failed attempt: back-off, then the attempt cap). */
  skip?: string;
  /** The step's instructions, signed by the fee payer alone as one transaction. */
  instructions?: Instruction[];
}

/**
 * Where a row goes next: after a run that sent nothing for it, or once its step landed. Its outcome is the runner's:
 * landed from `landed`; from `idle`, waiting while the row stays open, gone once it is closed.
 */
export interface NextLook {
  state: "open" | "closed";
  nextCheckAtMs: number;
  /** What the look found, in words (the row's last_detail). */
  detail: string;
  /** From `landed` only: what the confirmed step did, a value of the rail's closed set, which its report counts. */
  result?: string;
}

/**
 * What one rail's keeper brings to the shared run: its queue (claim, peek, outcome table), how it plans a row from the
 * chain, and how it reads the result. Everything else (floor pause, claim, send, confirm, back-off, one D1 batch of
 * outcomes) is the same for every rail and lives in runKeeper.
 */
export interface KeeperRail<
  Row extends KeeperRow,
  Planned extends PlannedStep<Row>,
  Item,
  Report extends KeeperRun<Item>,
> {
  /** What the fee payer would spend on, for the floor's pause message. */
  spending: string;
  /** The rail the steps' fees are booked under in the exposure budget (src/chain/fee-payer-budget/). */
  exposureRail: ExposureRail;
  /** The largest run within the rail's subrequest budget (its budget.ts). */
  maxRowsPerRun: number;
  table: KeeperTable;
  keyOf(row: Row): string;
  /** Claims up to `limit` due rows for `claimMs`, with their funding's ledger row. */
  claim(db: D1Database, claimId: string, nowMs: number, claimMs: number, limit: number): Promise<Row[]>;
  /** Lists due rows without claiming them; a rail without it has no dry run. */
  peek?: (db: D1Database, nowMs: number, limit: number) => Promise<Row[]>;
  /** Reads the chain (and the ledger's word on each funding) and decides each row's step. */
  plan(config: Config, rows: readonly Row[], nowMs: number): Promise<Planned[]>;
  /** What planning learnt about fundings the ledger did not know yet, written before anything is sent. */
  recordFundingFacts(db: D1Database, planned: readonly Planned[], nowMs: number): Promise<void>;
  /** The step's name in the outcome row: a value of the rail's set of keeper actions (NO_KEEPER_ACTION without one). */
  actionOf(p: Planned): string;
  /**
   * Whether the step hands the fee payer back more than its fee (rent): such steps are taken even below the fee payer's
   * minimum, where every other step waits. A rail without it pauses entirely below the minimum.
   */
  returnsRent?: (p: Planned) => boolean;
  /**
   * Right before the run's sends (after the blockhash): facts read again at the last moment may make steps wait (not
   * counted as failures). Returns why, per step; a rail without it sends what it planned.
   */
  beforeSend?: (
    config: Config,
    db: D1Database,
    steps: readonly Planned[],
    nowMs: number,
  ) => Promise<Map<Planned, string>>;
  /**
   * After the confirmations: what the landed steps cost beyond their fee, found out and booked (its failure is logged,
   * never the run's).
   */
  afterLanded?: (
    config: Config,
    db: D1Database,
    landed: readonly { planned: Planned; signature: string }[],
    nowMs: number,
  ) => Promise<void>;
  /** A row that is neither gated nor skipped and has nothing to send this run. */
  idle(p: Planned, nowMs: number): NextLook;
  /** A row whose step the chain confirmed. */
  landed(p: Planned, nowMs: number): NextLook;
  /** A report item: the row's look (`outcome` by value, `detail` in words) with the rail's own facts. */
  item(p: Planned, signature: string | null, outcome: KeeperItemOutcome, detail: string): Item;
  /**
   * The run's report: its items and the rail's counts (`results`: the `result` of every step that landed, by value);
   * `maxRows`: the most rows this run could take (the rail's budget, the Workers plan's and the caller's limit).
   */
  report(items: Item[], dryRun: boolean, maxRows: number, results?: readonly string[]): Report;
}

/** A report item's outcome: its look's (last_outcome), or planned: a dry run's step that would be sent. */
export type KeeperItemOutcome = KeeperLookOutcome | "planned";

/** What every keeper's report holds (the rail adds its counts). */
export interface KeeperRun<Item> {
  items: Item[];
  /**
   * Set when the fee payer is below SVC_FEE_PAYER_MIN_LAMPORTS and the run held steps back for it: all of them, or
   * (a rail with `returnsRent`) those that return no rent.
   */
  paused?: SpendingPause;
}

/**
 * One keeper run: claim due rows, plan them against the chain, send each step (the fee payer signs alone, preflight
 * on), poll the sent ones, and record every outcome in one D1 batch guarded by the run's claim. A step that cannot be
 * taken or fails backs off and is given up at the attempt cap; a step sent and not confirmed within the run keeps its
 * claim until it expires, so no other run sends it again before the chain has answered. A dry run claims, writes and
 * sends nothing.
 */
export async function runKeeper<
  Row extends KeeperRow,
  Planned extends PlannedStep<Row>,
  Item,
  Report extends KeeperRun<Item>,
>(
  config: Config,
  db: D1Database,
  rail: KeeperRail<Row, Planned, Item, Report>,
  options: { dryRun: boolean; limit: number },
): Promise<Report> {
  const nowMs = Date.now();
  const limit = Math.max(1, Math.min(options.limit, rail.maxRowsPerRun));
  if (options.dryRun && !rail.peek) throw new Error(`no dry run for ${rail.spending}`);
  // Keeper steps are optional spending: below the fee payer's minimum nothing is claimed or sent (one getBalance),
  // except the steps that give the fee payer back more than they cost — the ones that refill it.
  const paused = options.dryRun ? null : await optionalSpendingPause(config, rail.spending);
  if (paused && !rail.returnsRent) return { ...rail.report([], options.dryRun, limit), paused };
  const canPayOneFee = paused === null || BigInt(paused.balanceLamports) >= LAMPORTS_PER_SIGNATURE;
  const held = (p: Planned) => paused !== null && !(canPayOneFee && rail.returnsRent!(p));
  const claimId = crypto.randomUUID();
  const rows = options.dryRun
    ? await rail.peek!(db, nowMs, limit)
    : await rail.claim(db, claimId, nowMs, KEEPER_CLAIM_MS, limit);
  if (rows.length === 0) return rail.report([], options.dryRun, limit);

  const planned = await rail.plan(config, rows, nowMs);
  if (options.dryRun)
    return rail.report(
      planned.map((p) => dryRunItem(rail, p, nowMs)),
      true,
      limit,
    );
  await rail.recordFundingFacts(db, planned, nowMs);

  const outcomes: (KeeperOutcome & { key: string })[] = [];
  const items: Item[] = [];
  const results: string[] = [];
  const record = (p: Planned, outcome: KeeperOutcome) => {
    outcomes.push({ ...outcome, key: rail.keyOf(p.row) });
    items.push(rail.item(p, outcome.signature, outcome.outcome, outcome.detail));
  };
  const wouldSend = (p: Planned) => p.instructions !== undefined && !p.skip && !p.gate;
  const fees = await bookStepFees(
    config,
    db,
    rail,
    claimId,
    planned.filter((p) => wouldSend(p) && !held(p)),
    nowMs,
  );
  const sendable = (p: Planned) => wouldSend(p) && !held(p) && !fees.refusedFor(p);
  const blockhash = planned.some(sendable) ? await getLatestBlockhash(config) : null;
  const waits =
    blockhash && rail.beforeSend
      ? await rail.beforeSend(config, db, planned.filter(sendable), nowMs)
      : new Map<Planned, string>();
  const sent: { planned: Planned; signature: string }[] = [];
  let heldBack = false;
  for (const p of planned) {
    if (wouldSend(p) && held(p)) {
      // Not the row's failure: it waits for the fee payer to be refilled, as every step did before.
      heldBack = true;
      record(p, heldStep(rail, p, nowMs, FEE_PAYER_BELOW_MINIMUM));
      continue;
    }
    const refusal = wouldSend(p) ? fees.refusedFor(p) : null;
    if (refusal) {
      // Nor is a budget cap: the step waits for the day's spending to roll over (the reason says which cap).
      record(p, heldStep(rail, p, nowMs, `${refusal.reason}: ${refusal.message}`));
      continue;
    }
    if (!sendable(p) || !blockhash) {
      record(p, withoutSend(rail, p, nowMs));
      continue;
    }
    const wait = waits.get(p);
    if (wait) {
      record(p, heldStep(rail, p, nowMs, wait));
      continue;
    }
    const step = await sendKeeperStep(config, blockhash, p.instructions!);
    if (step.kind === "refused") record(p, failedAttempt(p.row, nowMs, "refused", step.why, rail.actionOf(p), null));
    else sent.push({ planned: p, signature: step.signature });
  }
  await fees.trimTo(sent.map((s) => s.planned));

  const statuses = await confirmAll(
    config,
    sent.map((s) => s.signature),
    KEEPER_CONFIRM_POLLS,
  );
  if (rail.afterLanded) {
    const landed = sent.filter((s) => statuses.get(s.signature)?.kind === "confirmed");
    await rail
      .afterLanded(config, db, landed, nowMs)
      .catch((error: unknown) => log("error", "keeper_after_landed_failed", { spending: rail.spending, error }));
  }
  for (const { planned: p, signature } of sent) {
    const status = statuses.get(signature);
    const action = rail.actionOf(p);
    if (status?.kind === "confirmed") {
      const { result, ...look } = rail.landed(p, nowMs);
      if (result !== undefined) results.push(result);
      record(p, { ...look, outcome: "landed", failures: 0, action, signature, keepClaim: false });
    } else if (status?.kind === "failed")
      record(p, failedAttempt(p.row, nowMs, "failed", `failed on chain: ${describe(status.err)}`, action, signature));
    else {
      const detail = "sent, not confirmed within this run";
      record(p, {
        state: "open",
        nextCheckAtMs: nowMs + KEEPER_CLAIM_MS,
        failures: p.row.failures,
        action,
        signature,
        outcome: "unconfirmed",
        detail,
        keepClaim: true,
      });
    }
  }
  await recordKeeperOutcomes(db, rail.table, claimId, outcomes, Date.now());
  const report = rail.report(items, false, limit, results);
  return paused && heldBack ? { ...report, paused } : report;
}

/**
 * Books the run's step fees (one signature each, no priority fee) in the exposure budget before anything is signed:
 * the steps that return rent in a booking counted but never refused, the others in one checked against the daily
 * spend caps (SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: a keeper step serves no buyer wallet or payTo of its own).
 * Both bookings run at once: one D1 round trip. After the sends, a booking is trimmed to the steps really sent (a
 * preflight refusal paid nothing) — one more round trip, only then.
 */
async function bookStepFees<Row extends KeeperRow, Planned extends PlannedStep<Row>>(
  config: Config,
  db: D1Database,
  rail: KeeperRail<Row, Planned, unknown, KeeperRun<unknown>>,
  claimId: string,
  steps: readonly Planned[],
  nowMs: number,
): Promise<{ refusedFor(p: Planned): PaymentRejection | null; trimTo(sent: readonly Planned[]): Promise<unknown> }> {
  const returnsRent = (p: Planned) => rail.returnsRent?.(p) ?? false;
  const groups = [
    { id: `keeper_fees:${rail.table.table}:${claimId}`, steps: steps.filter((p) => !returnsRent(p)), uncapped: false },
    { id: `keeper_fees:${rail.table.table}:${claimId}:returns_rent`, steps: steps.filter(returnsRent), uncapped: true },
  ];
  const feeOf = (count: number) => BigInt(count) * LAMPORTS_PER_SIGNATURE;
  const booked = await Promise.all(
    groups.map((g) =>
      bookExposure(
        config,
        db,
        {
          bookingId: g.id,
          rail: rail.exposureRail,
          kind: "network_fee",
          payer: null,
          payTo: null,
          lamports: feeOf(g.steps.length),
        },
        { nowMs, uncapped: g.uncapped },
      ),
    ),
  );
  const refusal = booked[0]!.ok ? null : (booked[0] as PaymentRejection);
  return {
    refusedFor: (p) => (refusal && !returnsRent(p) ? refusal : null),
    trimTo: (sent) =>
      Promise.all(
        groups.map((g, i) => {
          if (!booked[i]!.ok || g.steps.length === 0) return null;
          const really = sent.filter((p) => g.steps.includes(p)).length;
          return really < g.steps.length ? trimExposure(db, g.id, feeOf(really)) : null;
        }),
      ),
  };
}

function withoutSend<Row extends KeeperRow, Planned extends PlannedStep<Row>>(
  rail: KeeperRail<Row, Planned, unknown, KeeperRun<unknown>>,
  p: Planned,
  nowMs: number,
): KeeperOutcome {
  const base = { action: NO_KEEPER_ACTION, signature: null, keepClaim: false, failures: p.row.failures };
  if (p.gate?.kind === "drop")
    return { ...base, state: "dropped", nextCheckAtMs: nowMs, outcome: "dropped", detail: p.gate.why };
  if (p.gate?.kind === "wait")
    return {
      ...base,
      state: "open",
      nextCheckAtMs: nowMs + KEEPER_MIN_RECHECK_MS,
      outcome: "waiting",
      detail: p.gate.why,
    };
  if (p.skip) return failedAttempt(p.row, nowMs, "skipped", p.skip, rail.actionOf(p), null);
  const look = rail.idle(p, nowMs);
  return { ...base, ...look, outcome: look.state === "closed" ? "gone" : "waiting" };
}

/** A step ready to send and held back this run (not the row's failure): looked at again in a minute. */
function heldStep<Row extends KeeperRow, Planned extends PlannedStep<Row>>(
  rail: KeeperRail<Row, Planned, unknown, KeeperRun<unknown>>,
  p: Planned,
  nowMs: number,
  why: string,
): KeeperOutcome {
  return {
    state: "open",
    nextCheckAtMs: nowMs + KEEPER_MIN_RECHECK_MS,
    failures: p.row.failures,
    action: rail.actionOf(p),
    signature: null,
    outcome: "held",
    detail: why,
    keepClaim: false,
  };
}

/** A check that could not move the row forward: back off, and give up at the attempt cap (the row is stuck). */
function failedAttempt(
  row: KeeperRow,
  nowMs: number,
  outcome: "skipped" | "refused" | "failed",
  why: string,
  action: string,
  signature: string | null,
): KeeperOutcome {
  const next = afterFailedAttempt(row.failures, nowMs);
  const detail = next.state === "stuck" ? `gave up after ${next.failures} attempts: ${why}` : why;
  return {
    state: next.state,
    nextCheckAtMs: next.nextCheckAtMs,
    failures: next.failures,
    action,
    signature,
    outcome,
    detail,
    keepClaim: false,
  };
}

/** What a dry run reports for a row: what a real run would record, or planned for a step it would send. */
function dryRunItem<Row extends KeeperRow, Planned extends PlannedStep<Row>, Item>(
  rail: KeeperRail<Row, Planned, Item, KeeperRun<Item>>,
  p: Planned,
  nowMs: number,
): Item {
  if (p.instructions !== undefined && !p.skip && !p.gate)
    return rail.item(p, null, "planned", `would ${rail.actionOf(p)}`);
  if (p.skip) return rail.item(p, null, "skipped", p.skip);
  const look = withoutSend(rail, p, nowMs);
  return rail.item(p, null, look.outcome, look.detail);
}
