import { getLatestBlockhash } from "../../../chain/blockhash";
import { confirmAll } from "../../../chain/confirm-many";
import { signFacilitatorTransaction } from "../../../chain/facilitator-transaction";
import { bookExposure, settleExposure, trimExposure } from "../../../chain/fee-payer-budget/budget";
import { FEE_PAYER_BELOW_MINIMUM, optionalSpendingPause, type SpendingPause } from "../../../chain/fee-payer-floor";
import { type SendOutcome, sendWithPreflight } from "../../../chain/send-transaction";
import { describe } from "../../../chain/transaction-errors";
import type { Config } from "../../../platform/config/load-config";
import { log } from "../../../platform/observability/log";
import { MAX_CONFIRM_POLLS, maxRailsPerRun as maxRailsPerRunOnPlan } from "./budget";
import { planSweep, SELLER_TOKEN_ACCOUNT_MISSING, type SweepPlanItem } from "./plan";
import { buildSweepTransaction, SWEEP_NETWORK_FEE_LAMPORTS } from "./sweep-transaction";
import { claimSweepRails, finishSweepRun, type RailKey, type RailOutcome, selectSweepCandidates } from "./sweeps";
import { type RailAccounts, readRailAccounts } from "./vault-balances";

/** A run that dies mid-way holds its rails this long at most; after that another run may take them over. */
const SWEEP_CLAIM_TTL_MS = 15 * 60_000;

export interface SweepOptions {
  dryRun: boolean;
  limit: number;
  cooldownSeconds: number;
  requireRecentSettleWithinSeconds: number;
  /** For the run record and logs: "cron", "http", "http-cron". */
  trigger: string;
}

export interface SweepItem extends SweepPlanItem {
  /** Lamports the fee payer spent on this rail (network fee + token accounts it created); "0" when nothing was sent. */
  lamportsSpent: string;
  /** Sent sweeps only: whether the confirmation was seen within the run. */
  confirmed?: boolean;
}

export interface SweepReport {
  dryRun: boolean;
  scanned: number;
  attempted: number;
  succeeded: number;
  skippedBelowThreshold: number;
  /** SPL rails above the threshold whose seller has no token account for the mint (never created by a sweep). */
  skippedSellerTokenAccountMissing: number;
  /** Set when the run sent nothing because the fee payer is below SVC_FEE_PAYER_MIN_LAMPORTS (its items say so too). */
  paused: SpendingPause | null;
  failed: number;
  lamportsSpent: string;
  /** Rails one run may take on within its subrequest budget (the effective cap on `limit`). */
  maxRailsPerRun: number;
  items: SweepItem[];
}

/**
 * The configured defaults (docs/facilitator-spec.md §8), as POST /sweep with an empty body, GET /sweep-cron and the
 * Cron Trigger use them.
 */
export function defaultSweepOptions(config: Config, trigger: string): SweepOptions {
  return {
    dryRun: false,
    limit: config.sweep.batchLimit,
    cooldownSeconds: config.sweep.cooldownSeconds,
    requireRecentSettleWithinSeconds: config.sweep.recentSettleWindowSeconds,
    trigger,
  };
}

/**
 * One sweep run: candidates from the settle ledger, claimed in D1 (skipped on a dry run), balances read in
 * batches, the pure plan, then one Sweep transaction per eligible rail, confirmed in batches, and the outcome
 * of every held rail recorded. A dry run reads only: nothing is sent and nothing is written.
 */
export async function runSweep(config: Config, db: D1Database, options: SweepOptions): Promise<SweepReport> {
  const startedAtMs = Date.now();
  const maxRailsPerRun = maxRailsPerRunOnPlan(config.workersPlan);
  // Without a UniversalSettle program there are no vaults to sweep (src/platform/config/rail-switches.ts).
  if (config.programs.universalSettle === null) return report(options.dryRun, maxRailsPerRun, []);
  const attemptedBeforeMs = startedAtMs - options.cooldownSeconds * 1000;
  const candidates = await selectSweepCandidates(db, {
    nowMs: startedAtMs,
    settledSinceMs: startedAtMs - options.requireRecentSettleWithinSeconds * 1000,
    attemptedBeforeMs,
    limit: Math.min(options.limit, maxRailsPerRun),
  });
  if (options.dryRun) {
    const { rails } = await readRailAccounts(config, candidates);
    return report(
      true,
      maxRailsPerRun,
      planSweep(rails, config.sweep).map((item) => ({ ...item, lamportsSpent: "0" })),
    );
  }

  const claimId = crypto.randomUUID();
  const held = await claimSweepRails(db, candidates, {
    claimId,
    nowMs: startedAtMs,
    expiresAtMs: startedAtMs + SWEEP_CLAIM_TTL_MS,
    attemptedBeforeMs,
  });
  let items: SweepItem[];
  let paused: SpendingPause | null;
  try {
    ({ items, paused } = await sweepHeldRails(config, db, claimId, held));
  } catch (error) {
    // Give the rails back (their attempt time stays, so the cooldown still spaces out retries) and say so.
    const message = error instanceof Error ? error.message : String(error);
    const outcomes = held.map(
      (rail): RailOutcome => ({ ...rail, outcome: "failed", signature: null, error: message.slice(0, 300) }),
    );
    await finishSweepRun(db, claimId, outcomes, {
      ...runRecord(options.trigger, startedAtMs, report(false, maxRailsPerRun, [])),
      outcome: "error",
      scanned: held.length,
      failed: held.length,
    });
    log("error", "sweep_run", { trigger: options.trigger, outcome: "error", scanned: held.length, error });
    throw error;
  }
  const result = report(false, maxRailsPerRun, items, paused);
  const record = runRecord(options.trigger, startedAtMs, result);
  const outcomes = items.map(
    (item, i): RailOutcome => ({
      ...held[i]!,
      outcome: item.status === "ok" ? "ok" : item.status === "skipped" ? "skipped" : "failed",
      signature: item.signature,
      error: item.error,
    }),
  );
  await finishSweepRun(db, claimId, outcomes, record);
  log(record.outcome === "ok" ? "info" : "warn", "sweep_run", {
    trigger: options.trigger,
    outcome: record.outcome,
    scanned: result.scanned,
    attempted: result.attempted,
    succeeded: result.succeeded,
    skipped: result.skippedBelowThreshold,
    skippedSellerTokenAccountMissing: result.skippedSellerTokenAccountMissing,
    failed: result.failed,
    lamportsSpent: result.lamportsSpent,
    ...(paused ? { paused: paused.reason } : {}),
    durationMs: record.finishedAtMs - startedAtMs,
  });
  return result;
}

async function sweepHeldRails(
  config: Config,
  db: D1Database,
  claimId: string,
  held: readonly RailKey[],
): Promise<{ items: SweepItem[]; paused: SpendingPause | null }> {
  if (held.length === 0) return { items: [], paused: null };
  const { program, rails } = await readRailAccounts(config, held);
  const plan = planSweep(rails, config.sweep);
  const items: SweepItem[] = plan.map((item) => ({
    ...item,
    action: item.status === "eligible" ? "sweep_submitted" : item.action,
    lamportsSpent: "0",
  }));
  const eligible = plan.flatMap((item, i) => (item.status === "eligible" ? [i] : []));
  if (eligible.length === 0) return { items, paused: null };
  // Sweeps are optional spending: below the fee payer's minimum balance nothing is sent (one getBalance, only when
  // there is something to send).
  const paused = await optionalSpendingPause(config, "sweeps");
  if (paused) {
    for (const index of eligible)
      Object.assign(items[index]!, { status: "skipped", action: FEE_PAYER_BELOW_MINIMUM, error: paused.message });
    return { items, paused };
  }

  const transactions = new Map(
    eligible.map((index) => [index, buildSweepTransaction(config, program, rails[index] as RailAccounts)]),
  );
  const budget = await bookSweepSpending(
    config,
    db,
    claimId,
    [...transactions.values()].map((tx) => tx.lamportsIfLanded),
  );
  if (!budget.ok) {
    for (const index of eligible)
      Object.assign(items[index]!, { status: "skipped", action: budget.reason, error: budget.message });
    return { items, paused: null };
  }

  const blockhash = await getLatestBlockhash(config);
  /** `alreadyProcessed`: the cluster already had these exact bytes (an earlier send of the same sweep paid for it). */
  const sent: { index: number; signature: string; lamportsIfLanded: bigint; alreadyProcessed: boolean }[] = [];
  for (const index of eligible) {
    const item = items[index]!;
    const tx = transactions.get(index)!;
    const { wireBase64, signature } = await signFacilitatorTransaction(config, blockhash, tx.instructions);
    let outcome: SendOutcome;
    try {
      outcome = await sendWithPreflight(config, wireBase64);
    } catch (error) {
      // Transport failure: the transaction may have reached the cluster; confirmation below tells.
      sent.push({ index, signature, lamportsIfLanded: tx.lamportsIfLanded, alreadyProcessed: false });
      item.signature = signature;
      item.error = (error as Error).message;
      continue;
    }
    if (outcome.kind === "rejected" && outcome.err === "AlreadyProcessed") {
      // The same bytes were sent before (a retried delivery, or another run with this blockhash): they are on the
      // cluster, so their status says what really happened, not "failed"; this send paid nothing more.
      sent.push({ index, signature, lamportsIfLanded: tx.lamportsIfLanded, alreadyProcessed: true });
      item.signature = signature;
      continue;
    }
    if (outcome.kind === "rejected") {
      // Preflight refused it: nothing reached the chain, nothing was paid.
      Object.assign(item, {
        status: "failed",
        action: "sweep_error",
        error: `simulation failed: ${describe(outcome.err)}${lastFailureLog(outcome.logs)}`,
      });
      continue;
    }
    sent.push({ index, signature, lamportsIfLanded: tx.lamportsIfLanded, alreadyProcessed: false });
    item.signature = signature;
  }
  const statuses = await confirmAll(
    config,
    sent.map((s) => s.signature),
    MAX_CONFIRM_POLLS,
  );
  for (const { index, signature, lamportsIfLanded, alreadyProcessed } of sent) {
    const item = items[index]!;
    const status = statuses.get(signature);
    // An already-processed transaction landed once and its fee was paid once; it is counted here as well (an earlier
    // run that sent the same bytes may count it too: spending is over-reported rather than hidden).
    const spent = (lamports: bigint) => lamports.toString();
    const note = alreadyProcessed ? "already processed: an earlier send of this same transaction delivered it" : null;
    if (status?.kind === "confirmed") {
      Object.assign(item, {
        status: "ok",
        action: "sweep_submitted",
        confirmed: true,
        error: note,
        lamportsSpent: spent(lamportsIfLanded),
      });
    } else if (status?.kind === "failed") {
      // Landed and failed: the network fee is paid, the token accounts are not created.
      Object.assign(item, {
        status: "failed",
        action: "sweep_error",
        confirmed: true,
        error: `sweep failed on chain: ${describe(status.err)}`,
        lamportsSpent: spent(SWEEP_NETWORK_FEE_LAMPORTS),
      });
    } else {
      Object.assign(item, {
        status: "ok",
        action: "sweep_submitted",
        confirmed: false,
        error: item.error ?? note ?? `not confirmed within this run (${signature})`,
        lamportsSpent: spent(lamportsIfLanded),
      });
    }
  }
  // The bookings keep what this run's sends really put out (a preflight refusal, or the same bytes sent earlier, paid
  // nothing here).
  await budget.trimTo(sent.filter((s) => !s.alreadyProcessed).map((s) => BigInt(items[s.index]!.lamportsSpent)));
  return { items, paused: null };
}

/**
 * Books the run's sweeps in the exposure budget before any is signed, on the `sweep` rail against the daily spend caps
 * (an operator's job: no buyer wallet or payTo of its own): their network fees, and the rent of the fee receiver's
 * token accounts they create. Both bookings at once, one D1 round trip; a refusal of either voids the other and the run
 * sends nothing (each rail is skipped with the cap's reason). After the sends, one more round trip trims them to what
 * was really spent, only when less.
 */
async function bookSweepSpending(config: Config, db: D1Database, claimId: string, lamportsIfLanded: readonly bigint[]) {
  const fees = BigInt(lamportsIfLanded.length) * SWEEP_NETWORK_FEE_LAMPORTS;
  const rent = lamportsIfLanded.reduce((sum, l) => sum + l, 0n) - fees;
  const ids = { fees: `sweep_fees:${claimId}`, rent: `sweep_rent:${claimId}` };
  const booking = (bookingId: string, kind: "network_fee" | "rent_spent", lamports: bigint) =>
    bookExposure(config, db, { bookingId, rail: "sweep", kind, payer: null, payTo: null, lamports });
  const [feesBooked, rentBooked] = await Promise.all([
    booking(ids.fees, "network_fee", fees),
    booking(ids.rent, "rent_spent", rent),
  ]);
  const refused = !feesBooked.ok ? feesBooked : !rentBooked.ok ? rentBooked : null;
  if (refused) {
    await Promise.all([
      feesBooked.ok ? settleExposure(db, ids.fees, "voided") : null,
      rentBooked.ok ? settleExposure(db, ids.rent, "voided") : null,
    ]);
    return refused;
  }
  return {
    ok: true as const,
    /** `spent`: each sent sweep's lamports (its fee, plus rent only when it landed). */
    trimTo: (spent: readonly bigint[]) => {
      const feesSpent = BigInt(spent.length) * SWEEP_NETWORK_FEE_LAMPORTS;
      const rentSpent = spent.reduce((sum, l) => sum + l, 0n) - feesSpent;
      return Promise.all([
        feesSpent < fees ? trimExposure(db, ids.fees, feesSpent) : null,
        rentSpent < rent ? trimExposure(db, ids.rent, rentSpent) : null,
      ]);
    },
  };
}

function lastFailureLog(logs: readonly string[]): string {
  const line = logs.filter((l) => /failed|error|below|insufficient/i.test(l)).at(-1);
  return line ? ` (${line.slice(0, 160)})` : "";
}

function report(
  dryRun: boolean,
  maxRailsPerRun: number,
  items: SweepItem[],
  paused: SpendingPause | null = null,
): SweepReport {
  const count = (status: SweepItem["status"]) => items.filter((i) => i.status === status).length;
  return {
    dryRun,
    scanned: items.length,
    attempted: items.filter((i) => i.action === "sweep_submitted" || i.action === "sweep_error").length,
    succeeded: count("ok"),
    skippedBelowThreshold: items.filter((i) => i.action === "below_threshold").length,
    skippedSellerTokenAccountMissing: items.filter((i) => i.action === SELLER_TOKEN_ACCOUNT_MISSING).length,
    paused,
    failed: count("failed"),
    lamportsSpent: items.reduce((sum, i) => sum + BigInt(i.lamportsSpent), 0n).toString(),
    maxRailsPerRun,
    items,
  };
}

function runRecord(trigger: string, startedAtMs: number, result: SweepReport) {
  return {
    trigger,
    startedAtMs,
    finishedAtMs: Date.now(),
    outcome: result.paused ? ("paused" as const) : result.failed > 0 ? ("partial" as const) : ("ok" as const),
    scanned: result.scanned,
    attempted: result.attempted,
    succeeded: result.succeeded,
    skipped: result.items.filter((i) => i.status === "skipped").length,
    failed: result.failed,
    lamportsSpent: BigInt(result.lamportsSpent),
  };
}
