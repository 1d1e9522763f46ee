import { address, type Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import type { Config } from "../../config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../config/networks";
import { fetchAccounts, type AccountSnapshot } from "../../solana/accounts";
import { confirmAll } from "../../solana/confirm-many";
import { signFacilitatorTransaction } from "../../solana/facilitator-transaction";
import { rpcCall, solanaRpc } from "../../solana/rpc";
import { sendWithPreflight } from "../../solana/send-transaction";
import { describe } from "../../solana/transaction-errors";
import { decodePayment, type Payment } from "../../programs/sla-escrow/accounts";
import { getRefundPaymentInstruction, getReleasePaymentInstruction, type PayoutInstructionInput } from "../../programs/sla-escrow/instructions";
import { findEscrowSolStoragePda } from "../../programs/sla-escrow/pda";
import { escrowAddresses } from "../../schemes/sla-escrow/escrow-facts";
import { claimDuePayments, peekDuePayments, recordWatchOutcomes, type WatchedPayment, type WatchOutcome } from "../../store/escrow-watch";
import { decidePayout, type KeeperDecision } from "./decide";
import { optionalSpendingPause, type SpendingPause } from "../../solana/fee-payer-floor";
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
  action: "release" | "refund" | "none";
  signature: string | null;
  outcome: string;
}

export interface KeeperReport {
  dryRun: boolean;
  maxPaymentsPerRun: number;
  scanned: number;
  released: number;
  refunded: number;
  items: KeeperItem[];
  /** Set when the run paid out nothing because the fee payer is below SVC_FEE_PAYER_MIN_LAMPORTS. */
  paused?: SpendingPause;
}

interface Planned {
  row: WatchedPayment;
  payment: Payment | null;
  decision: KeeperDecision;
  /** The chain clock the decision was taken at (unix seconds). */
  chainNow: bigint;
  instruction?: ReturnType<typeof getReleasePaymentInstruction>;
  skip?: string;
}

/**
 * One keeper run (Cron Trigger or POST /escrow-keeper): claim due payments, read them and the chain clock in one
 * batch, release or refund what the program allows, confirm, and record every outcome in one D1 batch. The fee
 * payer signs and pays each payout's network fee as keeper. A dry run claims nothing and sends nothing.
 */
export async function runEscrowKeeper(config: Config, db: D1Database, options: KeeperOptions): Promise<KeeperReport> {
  const nowMs = Date.now();
  const maxPaymentsPerRun = maxPaymentsWithinBudget();
  const limit = Math.max(1, Math.min(options.limit, maxPaymentsPerRun));
  // Payouts are optional spending: below the fee payer's minimum nothing is claimed or sent (one getBalance).
  const paused = options.dryRun ? null : await optionalSpendingPause(config, "escrow keeper payouts");
  if (paused) return { ...report(false, maxPaymentsPerRun, []), paused };
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
      const outcome = action === "release" ? "released" : "refunded";
      outcomes.push({ paymentPda: p.row.paymentPda, state: "closed", nextCheckAtMs: nowMs, action, signature, outcome, keepClaim: false });
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
  const recipientAtas: Address[] = [];
  const pendingAta: { index: number; ata: Address }[] = [];
  for (const row of rows) {
    const account = accounts.get(row.paymentPda as Address);
    const payment = account && account.owner === programId ? decodePayment(account.data) : null;
    const decision = decidePayout(payment, chainNow);
    const p: Planned = { row, payment, decision, chainNow };
    planned.push(p);
    if (!payment || (decision.kind !== "release" && decision.kind !== "refund")) continue;

    const mint = row.mint as Address;
    const { bank, configAddress, escrow } = await escrowAddresses(programId, mint);
    const recipient = decision.kind === "release" ? payment.seller : payment.buyer;
    const base = { programId, bank, config: configAddress, escrow, payment: row.paymentPda as Address, keeper: config.feePayer };
    let input: PayoutInstructionInput;
    if (mint === NATIVE_SOL_ALLOWLIST_ADDRESS) {
      const [solStorage] = await findEscrowSolStoragePda(programId, mint, bank, escrow);
      input = { ...base, kind: "sol", solStorage, recipient };
    } else {
      const tokenProgram = accounts.get(mint)?.owner;
      if (!tokenProgram) {
        p.skip = `mint ${mint} not found`;
        continue;
      }
      const [[escrowAta], [recipientAta]] = await Promise.all([
        findAssociatedTokenPda({ owner: escrow, mint, tokenProgram }),
        findAssociatedTokenPda({ owner: recipient, mint, tokenProgram }),
      ]);
      input = { ...base, kind: "spl", mint, escrowAta, recipientAta, tokenProgram };
      recipientAtas.push(recipientAta);
      pendingAta.push({ index: planned.length - 1, ata: recipientAta });
    }
    p.instruction = decision.kind === "release" ? getReleasePaymentInstruction(input) : getRefundPaymentInstruction(input);
  }

  // The program pays into an existing token account only; the keeper does not pay a recipient's account rent.
  if (recipientAtas.length > 0) {
    const atas = await fetchAccounts(config, recipientAtas);
    for (const { index, ata } of pendingAta) {
      if (!atas.get(ata)) planned[index]!.skip = `recipient token account ${ata} does not exist yet; its owner must create it`;
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

function actionOf(p: Planned): "release" | "refund" | "none" {
  return p.decision.kind === "release" || p.decision.kind === "refund" ? p.decision.kind : "none";
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
    items,
  };
}
