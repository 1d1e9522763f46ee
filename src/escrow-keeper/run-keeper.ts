import { address, isAddress, type Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import type { Config } from "../config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../config/networks";
import { fetchAccounts, type AccountSnapshot } from "../solana/accounts";
import { confirmAll } from "../solana/confirm-many";
import { getLatestBlockhash } from "../solana/blockhash";
import { describe } from "../solana/transaction-errors";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../solana/token-programs";
import { decodePayment, type Payment } from "../programs/sla-escrow/accounts";
import type { ProgramInstruction } from "../programs/instruction-accounts";
import { buildClosePaymentInstruction, buildPayoutInstruction, isOracleTipDue } from "../programs/sla-escrow/payout-instructions";
import { escrowAddresses } from "../schemes/sla-escrow/escrow-facts";
import { claimDuePayments, peekDuePayments, recordFundingsConfirmed, recordWatchOutcomes, type WatchedPayment, type WatchOutcome } from "../store/escrow-watch";
import { recordSponsoredFundingFailures } from "../store/sponsored-funding-failures";
import { decidePayout, type KeeperDecision } from "../programs/sla-escrow/payout-decision";
import { optionalSpendingPause, type SpendingPause } from "../solana/fee-payer-floor";
import { CLAIM_MS, KEEPER_CONFIRM_POLLS, maxPaymentsWithinBudget } from "./budget";
import { afterFailedAttempt } from "./backoff";
import { readFundingStatuses, type FundingStatus } from "./funding-status";
import { sendKeeperStep } from "../solana/keeper-send";

const CLOCK_SYSVAR = address("SysvarC1ock11111111111111111111111111111111");
const RECHECK_WITHOUT_DEADLINE_MS = 60 * 60_000;
const MIN_RECHECK_MS = 60_000;

export interface KeeperOptions {
  dryRun: boolean;
  limit: number;
}

export interface KeeperItem {
  paymentPda: string;
  decision: KeeperDecision["kind"] | "dropped";
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
  /** Set when the run paid out nothing because the fee payer is below SVC_FEE_PAYER_MIN_LAMPORTS. */
  paused?: SpendingPause;
}

/** Why a row leaves the keeper's queue without a payout, or waits for its funding to show up. */
type FundingGate = { kind: "drop"; why: string } | { kind: "wait"; why: string };

interface Planned {
  row: WatchedPayment;
  payment: Payment | null;
  decision: KeeperDecision;
  /** The chain clock the decision was taken at (unix seconds). */
  chainNow: bigint;
  /** Set when the funding is not (yet) a payment this facilitator settled: no payout is considered. */
  gate?: FundingGate;
  /** The ledger still says pending, the chain says confirmed: the keeper records it before paying anything. */
  ledgerCatchUp?: boolean;
  /** A sponsored funding the chain shows failed (its fee was ours): counted against its payer. */
  sponsoredFailure?: boolean;
  instruction?: ProgramInstruction;
  /** The payout cannot be made now (counts as a failed attempt: backoff, then the cap). */
  skip?: string;
}

/**
 * One keeper run (Cron Trigger or POST /escrow-keeper): claim due payments, check each funding against the settlement
 * ledger, read the Payment accounts and the chain clock, release, refund or close what the program allows, confirm, and
 * record every outcome in one D1 batch. Everything the payout needs (mint, parties, amounts, state) comes from the
 * Payment account on chain; the watch row only points at it. The fee payer signs and pays each payout's network fee
 * as keeper, and only for fundings its ledger shows confirmed. A dry run claims, writes and sends nothing.
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
    return report(options.dryRun, maxPaymentsPerRun, planned.map((p) => item(p, null, p.gate?.why ?? p.skip ?? `would ${actionOf(p)}`)));
  }
  await recordFundingFacts(db, planned, nowMs);

  const outcomes: WatchOutcome[] = [];
  const items: KeeperItem[] = [];
  const sent: { planned: Planned; signature: string }[] = [];
  const payouts = planned.filter((p) => p.instruction && !p.skip);
  const blockhash = payouts.length > 0 ? await getLatestBlockhash(config) : null;
  for (const p of planned) {
    if (!p.instruction || p.skip || !blockhash) {
      const outcome = withoutPayout(p, nowMs, p.gate?.why ?? p.skip ?? describeDecision(p.decision));
      outcomes.push(outcome);
      items.push(item(p, null, outcome.outcome));
      continue;
    }
    const step = await sendKeeperStep(config, blockhash, [p.instruction]);
    if (step.kind === "refused") {
      const outcome = failedAttempt(p, nowMs, step.why, null);
      outcomes.push(outcome);
      items.push(item(p, null, outcome.outcome));
      continue;
    }
    sent.push({ planned: p, signature: step.signature });
  }

  const statuses = await confirmAll(config, sent.map((s) => s.signature), KEEPER_CONFIRM_POLLS);
  for (const { planned: p, signature } of sent) {
    const status = statuses.get(signature);
    const action = actionOf(p);
    if (status?.kind === "confirmed") {
      const outcome = action === "release" ? "released" : action === "refund" ? "refunded" : "closed";
      // A payout leaves the Payment account to close once its closed_at (settlement + closure delay) has passed.
      const closeAtMs = p.payment && action !== "close" ? nowMs + Number(p.payment.closureDelaySeconds + 1n) * 1000 : null;
      const state = closeAtMs === null ? "closed" : "open";
      outcomes.push({ paymentPda: p.row.paymentPda, state, nextCheckAtMs: closeAtMs ?? nowMs, failures: 0, action, signature, outcome, keepClaim: false });
      items.push(item(p, signature, outcome));
    } else if (status?.kind === "failed") {
      const outcome = failedAttempt(p, nowMs, `failed on chain: ${describe(status.err)}`, signature);
      outcomes.push(outcome);
      items.push(item(p, signature, outcome.outcome));
    } else {
      // Unknown: keep the claim until it expires so no run sends a second payout before this one had its chance.
      const outcome = "sent, not confirmed within this run";
      outcomes.push({ paymentPda: p.row.paymentPda, state: "open", nextCheckAtMs: nowMs + CLAIM_MS, failures: p.row.failures, action, signature, outcome, keepClaim: true });
      items.push(item(p, signature, outcome));
    }
  }
  await recordWatchOutcomes(db, claimId, outcomes, Date.now());
  return report(false, maxPaymentsPerRun, items);
}

/**
 * Reads the funding statuses the ledger cannot answer, the payments and the chain clock, then the payments' mints and
 * the token accounts a payout pays into — the recipient's and, when a tip is due, the oracle's — under both token
 * programs, so one more read suffices whichever program the mint has.
 */
async function plan(config: Config, rows: readonly WatchedPayment[], nowMs: number): Promise<Planned[]> {
  const programId = config.programs.slaEscrow;
  const accounts = await fetchAccounts(config, [...rows.filter((r) => isAddress(r.paymentPda)).map((r) => r.paymentPda as Address), CLOCK_SYSVAR]);
  const chainNow = clockUnixSeconds(accounts.get(CLOCK_SYSVAR) ?? null) ?? BigInt(Math.floor(nowMs / 1000));
  const paymentOf = (row: WatchedPayment) => {
    const account = accounts.get(row.paymentPda as Address);
    return account && account.owner === programId ? decodePayment(account.data) : null;
  };

  // The ledger answers for most rows; the chain is asked only about fundings it does not show confirmed or failed yet.
  const askChain = rows.filter((r) => r.ledger !== null && r.ledger.state !== "failed" && r.ledger.state !== "confirmed");
  const fundingStatuses = askChain.length > 0 ? await readFundingStatuses(config, askChain, nowMs) : new Map<string, FundingStatus>();

  const planned: Planned[] = [];
  for (const row of rows) {
    const payment = paymentOf(row);
    const p: Planned = { row, payment, decision: decidePayout(payment, chainNow), chainNow };
    planned.push(p);
    const gate = fundingGate(row, fundingStatuses.get(row.fundingSignature));
    if (gate) {
      p.gate = gate.gate;
      p.sponsoredFailure = gate.sponsoredFailure;
      continue;
    }
    p.ledgerCatchUp = row.ledger!.state !== "confirmed";
    if (payment) {
      const mismatch = ledgerMismatch(row, payment);
      if (mismatch) p.gate = { kind: "drop", why: mismatch };
    }
  }

  for (const p of planned) {
    if (p.gate || !p.payment || p.decision.kind !== "close") continue;
    p.instruction = await buildClosePaymentInstruction({ programId, caller: config.feePayer, paymentAddress: p.row.paymentPda as Address, payment: p.payment });
  }

  const payable = planned.filter((p) => !p.gate && p.payment && (p.decision.kind === "release" || p.decision.kind === "refund"));
  const wanted = new Set<Address>();
  const candidates = new Map<Planned, { mint: Address; atas: Map<Address, Address[]> }>();
  for (const p of payable) {
    const payment = p.payment!;
    const recipient = p.decision.kind === "release" ? payment.seller : payment.buyer;
    if (payment.mint === NATIVE_SOL_ALLOWLIST_ADDRESS) {
      candidates.set(p, { mint: payment.mint, atas: new Map() });
      continue;
    }
    const owners = isOracleTipDue(payment) ? [recipient, payment.oracleAuthority] : [recipient];
    const atas = new Map<Address, Address[]>();
    for (const tokenProgram of [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
      const derived = await Promise.all(owners.map(async (owner) => (await findAssociatedTokenPda({ owner, mint: payment.mint, tokenProgram }))[0]));
      atas.set(tokenProgram, derived);
      derived.forEach((ata) => wanted.add(ata));
    }
    wanted.add(payment.mint);
    candidates.set(p, { mint: payment.mint, atas });
  }
  const tokenAccounts = wanted.size > 0 ? await fetchAccounts(config, [...wanted]) : new Map<Address, AccountSnapshot | null>();

  for (const [p, { mint, atas }] of candidates) {
    const payment = p.payment!;
    const { escrow } = await escrowAddresses(programId, mint);
    if (escrow !== payment.escrow) {
      p.skip = `payment escrow ${payment.escrow} is not the escrow of mint ${mint}`;
      continue;
    }
    let tokenProgram: Address | null = null;
    if (mint !== NATIVE_SOL_ALLOWLIST_ADDRESS) {
      tokenProgram = tokenAccounts.get(mint)?.owner ?? null;
      const payInto = tokenProgram ? atas.get(tokenProgram) : undefined;
      if (!tokenProgram || !payInto) {
        p.skip = `mint ${mint} is not a token mint on this cluster`;
        continue;
      }
      // The program creates a missing seller or oracle token account at the caller's cost (and refuses a missing
      // buyer account): the keeper pays nobody's rent, so it waits for the owner to create it.
      const missing = payInto.find((ata) => !tokenAccounts.get(ata));
      if (missing) {
        p.skip = `recipient token account ${missing} does not exist yet; its owner must create it`;
        continue;
      }
    }
    const payout = await buildPayoutInstruction(p.decision.kind as "release" | "refund", {
      programId,
      caller: config.feePayer,
      paymentAddress: p.row.paymentPda as Address,
      payment,
      tokenProgram,
    });
    p.instruction = payout.instruction;
  }
  return planned;
}

/**
 * Whether the watched funding is a payment this facilitator settled: its ledger row must exist and the funding must
 * be confirmed (by the ledger, or by the chain when the ledger has not caught up). A funding that failed, or that
 * never landed and can no longer (blockhash expired), drops the row; one still in flight waits.
 */
function fundingGate(row: WatchedPayment, status: FundingStatus | undefined): { gate: FundingGate; sponsoredFailure: boolean } | null {
  const drop = (why: string, sponsoredFailure = false) => ({ gate: { kind: "drop" as const, why }, sponsoredFailure });
  if (!isAddress(row.paymentPda)) return drop(`${row.paymentPda} is not an account address`);
  if (row.ledger === null || row.ledger.scheme !== "sla-escrow") return drop(`funding ${row.fundingSignature} is not an sla-escrow settlement in this facilitator's ledger`);
  if (row.ledger.state === "failed") return drop(`funding ${row.fundingSignature} failed (settlement ledger)`);
  // Confirmed: it created the Payment account (a missing account was closed after its payout: the decision says so).
  if (row.ledger.state === "confirmed") return null;
  if (!status || status.kind === "unknown") return { gate: { kind: "wait", why: `funding ${row.fundingSignature} not confirmed yet` }, sponsoredFailure: false };
  if (status.kind === "failed") return drop(`funding ${row.fundingSignature} failed on chain: ${describe(status.err)}`, row.sponsoredPayer !== null);
  if (status.kind === "expired") return drop(`funding ${row.fundingSignature} never landed and its blockhash expired`);
  return null;
}

/** The Payment at the watched address must be the one the ledger settled (a uid can be funded again after a close). */
function ledgerMismatch(row: WatchedPayment, payment: Payment): string | null {
  const ledger = row.ledger!;
  if (payment.buyer !== ledger.payer || payment.mint !== ledger.asset || payment.seller !== ledger.merchantWallet || payment.amount.toString() !== ledger.amount) {
    return `the Payment account at ${row.paymentPda} is not the funding ${row.fundingSignature} settled here`;
  }
  return null;
}

/** Ledger rows the chain showed confirmed, and failed sponsored fundings, in at most two D1 round trips. */
async function recordFundingFacts(db: D1Database, planned: readonly Planned[], nowMs: number): Promise<void> {
  await recordFundingsConfirmed(db, planned.filter((p) => p.ledgerCatchUp && !p.gate).map((p) => p.row.ledger!.messageHash), nowMs);
  const failures = planned.filter((p) => p.sponsoredFailure && p.row.sponsoredPayer);
  if (failures.length > 0) await recordSponsoredFundingFailures(db, failures.map((p) => ({ signature: p.row.fundingSignature, payer: p.row.sponsoredPayer! })), nowMs);
}

function withoutPayout(p: Planned, nowMs: number, outcome: string): WatchOutcome {
  const base = { paymentPda: p.row.paymentPda, action: "none" as const, signature: null, outcome, keepClaim: false, failures: p.row.failures };
  if (p.gate?.kind === "drop") return { ...base, state: "dropped", nextCheckAtMs: nowMs };
  if (p.gate?.kind === "wait") return { ...base, state: "open", nextCheckAtMs: nowMs + MIN_RECHECK_MS };
  if (p.skip) return failedAttempt(p, nowMs, outcome, null);
  const { decision } = p;
  if (decision.kind === "closed") return { ...base, state: "closed", nextCheckAtMs: nowMs };
  if (decision.kind === "wait" && decision.untilUnixSeconds !== null && p.payment) {
    const waitMs = Number(decision.untilUnixSeconds - p.chainNow) * 1000;
    return { ...base, state: "open", nextCheckAtMs: nowMs + Math.max(MIN_RECHECK_MS, waitMs) };
  }
  return { ...base, state: "open", nextCheckAtMs: nowMs + RECHECK_WITHOUT_DEADLINE_MS };
}

/** A check that could not move the payment forward: back off, and give up at the attempt cap. */
function failedAttempt(p: Planned, nowMs: number, outcome: string, signature: string | null): WatchOutcome {
  const next = afterFailedAttempt(p.row.failures, nowMs);
  const said = next.state === "stuck" ? `gave up after ${next.failures} attempts: ${outcome}` : outcome;
  return { paymentPda: p.row.paymentPda, state: next.state, nextCheckAtMs: next.nextCheckAtMs, failures: next.failures, action: actionOf(p), signature, outcome: said, keepClaim: false };
}

/** Clock sysvar: slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64 @32. */
function clockUnixSeconds(account: AccountSnapshot | null): bigint | null {
  if (!account || account.data.length < 40) return null;
  return new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength).getBigInt64(32, true);
}

function actionOf(p: Planned): KeeperAction {
  if (p.gate) return "none";
  return p.decision.kind === "release" || p.decision.kind === "refund" || p.decision.kind === "close" ? p.decision.kind : "none";
}

function describeDecision(decision: KeeperDecision): string {
  return decision.kind === "closed" || decision.kind === "wait" ? decision.why : decision.kind;
}

function item(p: Planned, signature: string | null, outcome: string): KeeperItem {
  const decision = p.gate?.kind === "drop" ? "dropped" : p.gate?.kind === "wait" ? "wait" : p.decision.kind;
  return { paymentPda: p.row.paymentPda, decision, action: actionOf(p), signature, outcome };
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
