import { address, type Address } from "@solana/kit";
import type { Config } from "../../config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../config/networks";
import { fetchAccounts, type AccountSnapshot } from "../../solana/accounts";
import { confirmAll } from "../../solana/confirm-many";
import { signFacilitatorTransaction } from "../../solana/facilitator-transaction";
import { rpcCall, solanaRpc } from "../../solana/rpc";
import { sendWithPreflight } from "../../solana/send-transaction";
import { describe } from "../../solana/transaction-errors";
import { decodePayment, type Payment } from "../../programs/sla-escrow/accounts";
import type { ProgramInstruction } from "../../programs/instruction-accounts";
import { buildClosePaymentInstruction, buildPayoutInstruction } from "../../programs/sla-escrow/payout-instructions";
import { claimDuePayments, peekDuePayments, recordWatchOutcomes, type WatchedPayment, type WatchOutcome } from "../../store/escrow-watch";
import { decidePayout, type KeeperDecision } from "./decide";
import { CLAIM_MS, KEEPER_CONFIRM_POLLS, maxPaymentsWithinBudget } from "./budget";

const CLOCK_SYSVAR = address("SysvarC1ock11111111111111111111111111111111");
/** A watched payment whose account does not exist yet may still be landing (settle pending): look again later. */
const FUNDING_GRACE_MS = 10 * 60_000;
const RETRY_AFTER_FAILURE_MS = 10 * 60_000;
const RECHECK_WITHOUT_DEADLINE_MS = 60 * 60_000;
const MIN_RECHECK_MS = 60_000;

export interface KeeperOptions {
  dryRun: boolean;
  limit: number;
}

export interface KeeperItem {
  paymentPda: string;
  decision: KeeperDecision["kind"];
  action: KeeperAction;
  signature: string | null;
  outcome: string;
}

type KeeperAction = "release" | "refund" | "close" | "none";

export interface KeeperReport {
  dryRun: boolean;
  maxPaymentsPerRun: number;
  scanned: number;
  released: number;
  refunded: number;
  closed: number;
  items: KeeperItem[];
}

interface Planned {
  row: WatchedPayment;
  payment: Payment | null;
  decision: KeeperDecision;
  /** The chain clock the decision was taken at (unix seconds). */
  chainNow: bigint;
  instruction?: ProgramInstruction;
  skip?: string;
}

/**
 * One keeper run (Cron Trigger or POST /escrow-keeper): claim due payments, read them and the chain clock in one
 * batch, release, refund or close what the program allows, confirm, and record every outcome in one D1 batch. The
 * fee payer signs and pays each payout's network fee as keeper. A dry run claims nothing and sends nothing.
 */
export async function runEscrowKeeper(config: Config, db: D1Database, options: KeeperOptions): Promise<KeeperReport> {
  const nowMs = Date.now();
  const maxPaymentsPerRun = maxPaymentsWithinBudget();
  const limit = Math.max(1, Math.min(options.limit, maxPaymentsPerRun));
  const claimId = crypto.randomUUID();
  const rows = options.dryRun ? await peekDuePayments(db, nowMs, limit) : await claimDuePayments(db, claimId, nowMs, CLAIM_MS, limit);
  if (rows.length === 0) return report(options.dryRun, maxPaymentsPerRun, []);

  const planned = await plan(config, rows, nowMs);
  if (options.dryRun) {
    return report(options.dryRun, maxPaymentsPerRun, planned.map((p) => item(p, null, p.skip ?? `would ${actionOf(p)}`)));
  }

  const outcomes: WatchOutcome[] = [];
  const items: KeeperItem[] = [];
  const sent: { planned: Planned; signature: string }[] = [];
  const payouts = planned.filter((p) => p.instruction && !p.skip);
  const blockhash = payouts.length > 0 ? (await rpcCall(config, "getLatestBlockhash", solanaRpc(config).getLatestBlockhash({ commitment: "confirmed" }))).value : null;
  for (const p of planned) {
    if (!p.instruction || p.skip || !blockhash) {
      const outcome = p.skip ?? describeDecision(p.decision);
      outcomes.push(waitOrClose(p, nowMs, outcome));
      items.push(item(p, null, outcome));
      continue;
    }
    const { wireBase64, signature } = await signFacilitatorTransaction(config, blockhash, [p.instruction]);
    try {
      const result = await sendWithPreflight(config, wireBase64);
      if (result.kind === "rejected") {
        const outcome = `preflight refused: ${describe(result.err)}`;
        outcomes.push({ paymentPda: p.row.paymentPda, state: "open", nextCheckAtMs: nowMs + RETRY_AFTER_FAILURE_MS, action: actionOf(p), signature: null, outcome, keepClaim: false });
        items.push(item(p, null, outcome));
        continue;
      }
    } catch {
      // Transport failure: the payout may have reached the cluster; the status poll below finds out.
    }
    sent.push({ planned: p, signature });
  }

  const statuses = await confirmAll(config, sent.map((s) => s.signature), KEEPER_CONFIRM_POLLS);
  for (const { planned: p, signature } of sent) {
    const status = statuses.get(signature);
    const action = actionOf(p);
    if (status?.kind === "confirmed") {
      const outcome = action === "release" ? "released" : action === "refund" ? "refunded" : "closed";
      // A payout leaves the Payment account to close once its closed_at (settle time + closure delay) has passed.
      const closeAtMs = p.payment && action !== "close" ? nowMs + Number(p.payment.closureDelaySeconds + 1n) * 1000 : null;
      const state = closeAtMs === null ? "closed" : "open";
      outcomes.push({ paymentPda: p.row.paymentPda, state, nextCheckAtMs: closeAtMs ?? nowMs, action, signature, outcome, keepClaim: false });
      items.push(item(p, signature, outcome));
    } else if (status?.kind === "failed") {
      const outcome = `failed on chain: ${describe(status.err)}`;
      outcomes.push({ paymentPda: p.row.paymentPda, state: "open", nextCheckAtMs: nowMs + RETRY_AFTER_FAILURE_MS, action, signature, outcome, keepClaim: false });
      items.push(item(p, signature, outcome));
    } else {
      // Unknown: keep the claim until it expires so no run sends a second payout before this one had its chance.
      const outcome = "sent, not confirmed within this run";
      outcomes.push({ paymentPda: p.row.paymentPda, state: "open", nextCheckAtMs: nowMs + CLAIM_MS, action, signature, outcome, keepClaim: true });
      items.push(item(p, signature, outcome));
    }
  }
  await recordWatchOutcomes(db, claimId, outcomes, Date.now());
  return report(false, maxPaymentsPerRun, items);
}

/** Reads the payments, their mints and the chain clock in one batch; recipient token accounts in a second. */
async function plan(config: Config, rows: readonly WatchedPayment[], nowMs: number): Promise<Planned[]> {
  const programId = config.programs.slaEscrow;
  const splMints = [...new Set(rows.map((r) => r.mint).filter((m) => m !== NATIVE_SOL_ALLOWLIST_ADDRESS))] as Address[];
  const accounts = await fetchAccounts(config, [...rows.map((r) => r.paymentPda as Address), ...splMints, CLOCK_SYSVAR]);
  const chainNow = clockUnixSeconds(accounts.get(CLOCK_SYSVAR) ?? null) ?? BigInt(Math.floor(nowMs / 1000));

  const planned: Planned[] = [];
  const payoutAtas: { index: number; atas: Address[] }[] = [];
  for (const row of rows) {
    const account = accounts.get(row.paymentPda as Address);
    const payment = account && account.owner === programId ? decodePayment(account.data) : null;
    const decision = decidePayout(payment, chainNow);
    const p: Planned = { row, payment, decision, chainNow };
    planned.push(p);
    if (!payment) continue;
    const facts = { programId, caller: config.feePayer, paymentAddress: row.paymentPda as Address, payment };
    if (decision.kind === "close") {
      p.instruction = await buildClosePaymentInstruction(facts);
      continue;
    }
    if (decision.kind !== "release" && decision.kind !== "refund") continue;

    const mint = row.mint as Address;
    const tokenProgram = mint === NATIVE_SOL_ALLOWLIST_ADDRESS ? null : accounts.get(mint)?.owner ?? null;
    if (mint !== NATIVE_SOL_ALLOWLIST_ADDRESS && !tokenProgram) {
      p.skip = `mint ${mint} not found`;
      continue;
    }
    const payout = await buildPayoutInstruction(decision.kind, { ...facts, tokenProgram });
    p.instruction = payout.instruction;
    if (payout.paysIntoTokenAccounts.length > 0) payoutAtas.push({ index: planned.length - 1, atas: payout.paysIntoTokenAccounts });
  }

  // The program creates a missing seller or oracle token account at the caller's cost: the keeper pays nobody's rent.
  if (payoutAtas.length > 0) {
    const atas = await fetchAccounts(config, payoutAtas.flatMap((entry) => entry.atas));
    for (const { index, atas: needed } of payoutAtas) {
      const missing = needed.find((ata) => !atas.get(ata));
      if (missing) planned[index]!.skip = `recipient token account ${missing} does not exist yet; its owner must create it`;
    }
  }
  return planned;
}

function waitOrClose(p: Planned, nowMs: number, outcome: string): WatchOutcome {
  const base = { paymentPda: p.row.paymentPda, action: "none" as const, signature: null, outcome, keepClaim: false };
  const { decision } = p;
  if (decision.kind === "closed") {
    // A payment whose funding may still be landing is not given up on yet.
    if (p.payment === null && nowMs - p.row.createdAtMs < FUNDING_GRACE_MS) return { ...base, state: "open", nextCheckAtMs: nowMs + MIN_RECHECK_MS };
    return { ...base, state: "closed", nextCheckAtMs: nowMs };
  }
  if (decision.kind === "wait" && decision.untilUnixSeconds !== null && p.payment) {
    const waitMs = Number(decision.untilUnixSeconds - p.chainNow) * 1000;
    return { ...base, state: "open", nextCheckAtMs: nowMs + Math.max(MIN_RECHECK_MS, waitMs) };
  }
  return { ...base, state: "open", nextCheckAtMs: nowMs + (p.skip ? RETRY_AFTER_FAILURE_MS : RECHECK_WITHOUT_DEADLINE_MS) };
}

/** Clock sysvar: slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64 @32. */
function clockUnixSeconds(account: AccountSnapshot | null): bigint | null {
  if (!account || account.data.length < 40) return null;
  return new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength).getBigInt64(32, true);
}

function actionOf(p: Planned): KeeperAction {
  return p.decision.kind === "release" || p.decision.kind === "refund" || p.decision.kind === "close" ? p.decision.kind : "none";
}

function describeDecision(decision: KeeperDecision): string {
  return decision.kind === "closed" || decision.kind === "wait" ? decision.why : decision.kind;
}

function item(p: Planned, signature: string | null, outcome: string): KeeperItem {
  return { paymentPda: p.row.paymentPda, decision: p.decision.kind, action: actionOf(p), signature, outcome };
}

function report(dryRun: boolean, maxPaymentsPerRun: number, items: KeeperItem[]): KeeperReport {
  return {
    dryRun,
    maxPaymentsPerRun,
    scanned: items.length,
    released: items.filter((i) => i.outcome === "released").length,
    refunded: items.filter((i) => i.outcome === "refunded").length,
    closed: items.filter((i) => i.outcome === "closed").length,
    items,
  };
}
