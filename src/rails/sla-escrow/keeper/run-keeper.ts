import { type Address, isAddress } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { type AccountSnapshot, fetchAccounts } from "../../../chain/accounts";
import { CLOCK_SYSVAR, chainClockOf } from "../../../chain/chain-clock";
import type { SpendingPause } from "../../../chain/fee-payer-floor";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../../chain/token-programs";
import { describe } from "../../../chain/transaction-errors";
import { type FundingStatus, readFundingStatuses } from "../../../jobs/keeper/funding-status";
import {
  KEEPER_MIN_RECHECK_MS,
  type KeeperGate,
  type KeeperItemOutcome,
  type KeeperRail,
  type NextLook,
  type PlannedStep,
  runKeeper,
} from "../../../jobs/keeper/run-keeper";
import type { Config } from "../../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../../platform/config/networks";
import { recordFundingsConfirmed } from "../../../store/settlements";
import { NO_KEEPER_ACTION } from "../../../store/states";
import { escrowAddresses } from "../escrow-facts";
import { decodePayment, type Payment } from "../program/accounts";
import { decidePayout, type KeeperDecision } from "../program/payout-decision";
import { buildClosePaymentInstruction, buildPayoutInstruction, isOracleTipDue } from "../program/payout-instructions";
import { claimDuePayments, ESCROW_WATCH_TABLE, peekDuePayments, type WatchedPayment } from "../store/escrow-watch";
import { recordSponsoredFundingFailures } from "../store/sponsored-funding-failures";
import type { EscrowKeeperAction } from "../store/states";
import { maxPaymentsWithinBudget } from "./budget";
import { bookPayoutAccountCreations, type CreatableAccount, payoutAccountWaits } from "./payout-accounts";

const RECHECK_WITHOUT_DEADLINE_MS = 60 * 60_000;

export interface KeeperOptions {
  dryRun: boolean;
  limit: number;
}

export interface KeeperItem {
  paymentPda: string;
  decision: KeeperDecision["kind"] | "dropped";
  action: EscrowKeeperAction;
  signature: string | null;
  /** What the run did with the row, by value (the row's last_outcome; planned in a dry run), and in words. */
  outcome: KeeperItemOutcome;
  detail: string;
}

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

interface Planned extends PlannedStep<WatchedPayment> {
  payment: Payment | null;
  decision: KeeperDecision;
  /** The chain clock the decision was taken at (unix seconds). */
  chainNow: bigint;
  /** The ledger still says pending, the chain says confirmed: the keeper records it before paying anything. */
  ledgerCatchUp?: boolean;
  /** A sponsored funding the chain shows failed (its fee was ours): counted against its payer. */
  sponsoredFailure?: boolean;
  /** The payout's recipient token accounts the program would create at the caller's cost (./payout-accounts.ts). */
  creatable?: CreatableAccount[];
}

/**
 * The escrow rail's part of a keeper run (../keeper/run-keeper.ts): due payments from the watch list, each funding
 * checked against the settlement ledger, the Payment accounts and the chain clock read, and a release, refund or close
 * where the program allows it. Everything the payout needs (mint, parties, amounts, state) comes from the Payment
 * account on chain; the watch row only points at it. The fee payer signs and pays each payout's network fee as keeper,
 * and only for fundings its ledger shows confirmed.
 */
const ESCROW_RAIL: KeeperRail<WatchedPayment, Planned, KeeperItem, KeeperReport> = {
  spending: "escrow keeper payouts",
  exposureRail: "sla-escrow",
  maxRowsPerRun: maxPaymentsWithinBudget(),
  table: ESCROW_WATCH_TABLE,
  keyOf: (row) => row.paymentPda,
  claim: claimDuePayments,
  peek: peekDuePayments,
  plan,
  recordFundingFacts,
  actionOf,
  beforeSend: async (config, db, steps, nowMs) => {
    const waits = await payoutAccountWaits(
      config,
      db,
      steps.map((p) => p.creatable ?? []),
      nowMs,
    );
    return new Map([...waits].map(([i, why]) => [steps[i]!, why]));
  },
  afterLanded: (config, db, landed, nowMs) =>
    bookPayoutAccountCreations(
      config,
      db,
      landed.map((l) => ({
        signature: l.signature,
        buyer: l.planned.payment!.buyer,
        creatable: l.planned.creatable ?? [],
      })),
      nowMs,
    ),
  idle,
  landed,
  item,
  report,
};

/**
 * One escrow keeper run (Cron Trigger, POST /escrow-keeper, pr402's operator routes). A dry run claims, writes and
 * sends nothing.
 */
export function runEscrowKeeper(config: Config, db: D1Database, options: KeeperOptions): Promise<KeeperReport> {
  return runKeeper(config, db, ESCROW_RAIL, options);
}

/**
 * Reads the funding statuses the ledger cannot answer, the payments and the chain clock, then the payments' mints and
 * the token accounts a payout pays into — the recipient's and, when a tip is due, the oracle's — under both token
 * programs, so one more read suffices whichever program the mint has.
 */
async function plan(config: Config, rows: readonly WatchedPayment[], nowMs: number): Promise<Planned[]> {
  const programId = config.programs.slaEscrow;
  const accounts = await fetchAccounts(config, [
    ...rows.filter((r) => isAddress(r.paymentPda)).map((r) => r.paymentPda as Address),
    CLOCK_SYSVAR,
  ]);
  const chainNow = chainClockOf(accounts.get(CLOCK_SYSVAR) ?? null, nowMs).unixSeconds;
  const paymentOf = (row: WatchedPayment) => {
    const account = accounts.get(row.paymentPda as Address);
    return account && account.owner === programId ? decodePayment(account.data) : null;
  };

  // The ledger answers for most rows; the chain is asked only about fundings it does not show confirmed or failed yet.
  const askChain = rows.filter(
    (r) => r.ledger !== null && r.ledger.state !== "failed" && r.ledger.state !== "confirmed",
  );
  const fundingStatuses =
    askChain.length > 0 ? await readFundingStatuses(config, askChain, nowMs) : new Map<string, FundingStatus>();

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
    p.instructions = [
      await buildClosePaymentInstruction({
        programId,
        caller: config.feePayer,
        paymentAddress: p.row.paymentPda as Address,
        payment: p.payment,
      }),
    ];
  }

  const payable = planned.filter(
    (p) => !p.gate && p.payment && (p.decision.kind === "release" || p.decision.kind === "refund"),
  );
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
      const derived = await Promise.all(
        owners.map(async (owner) => (await findAssociatedTokenPda({ owner, mint: payment.mint, tokenProgram }))[0]),
      );
      atas.set(tokenProgram, derived);
      for (const ata of derived) wanted.add(ata);
    }
    wanted.add(payment.mint);
    candidates.set(p, { mint: payment.mint, atas });
  }
  const tokenAccounts =
    wanted.size > 0 ? await fetchAccounts(config, [...wanted]) : new Map<Address, AccountSnapshot | null>();

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
      // Read again just before the send (./payout-accounts.ts); a refund's buyer account is never created (refused).
      const owners = isOracleTipDue(payment) ? [recipientOf(p), payment.oracleAuthority] : [recipientOf(p)];
      p.creatable = owners
        .map((owner, i) => ({ account: payInto[i]!, owner }))
        .filter((c) => !(p.decision.kind === "refund" && c.owner === payment.buyer));
    }
    const payout = await buildPayoutInstruction(p.decision.kind as "release" | "refund", {
      programId,
      caller: config.feePayer,
      paymentAddress: p.row.paymentPda as Address,
      payment,
      tokenProgram,
    });
    p.instructions = [payout.instruction];
  }
  return planned;
}

function recipientOf(p: Planned): Address {
  return p.decision.kind === "release" ? p.payment!.seller : p.payment!.buyer;
}

/**
 * Whether the watched funding is a payment this facilitator settled: its ledger row must exist and the funding must
 * be confirmed (by the ledger, or by the chain when the ledger has not caught up). A funding that failed, or that
 * never landed and can no longer (blockhash expired), drops the row; one still in flight waits.
 */
function fundingGate(
  row: WatchedPayment,
  status: FundingStatus | undefined,
): { gate: KeeperGate; sponsoredFailure: boolean } | null {
  const drop = (why: string, sponsoredFailure = false) => ({ gate: { kind: "drop" as const, why }, sponsoredFailure });
  if (!isAddress(row.paymentPda)) return drop(`${row.paymentPda} is not an account address`);
  if (row.ledger === null || row.ledger.scheme !== "sla-escrow")
    return drop(`funding ${row.fundingSignature} is not an sla-escrow settlement in this facilitator's ledger`);
  if (row.ledger.state === "failed") return drop(`funding ${row.fundingSignature} failed (settlement ledger)`);
  // Confirmed: it created the Payment account (a missing account was closed after its payout: the decision says so).
  if (row.ledger.state === "confirmed") return null;
  if (!status || status.kind === "unknown")
    return {
      gate: { kind: "wait", why: `funding ${row.fundingSignature} not confirmed yet` },
      sponsoredFailure: false,
    };
  if (status.kind === "failed")
    return drop(
      `funding ${row.fundingSignature} failed on chain: ${describe(status.err)}`,
      row.sponsoredPayer !== null,
    );
  if (status.kind === "expired") return drop(`funding ${row.fundingSignature} never landed and its blockhash expired`);
  return null;
}

/** The Payment at the watched address must be the one the ledger settled (a uid can be funded again after a close). */
function ledgerMismatch(row: WatchedPayment, payment: Payment): string | null {
  const ledger = row.ledger!;
  if (
    payment.buyer !== ledger.payer ||
    payment.mint !== ledger.asset ||
    payment.seller !== ledger.merchantWallet ||
    payment.amount.toString() !== ledger.amount
  ) {
    return `the Payment account at ${row.paymentPda} is not the funding ${row.fundingSignature} settled here`;
  }
  return null;
}

/** Ledger rows the chain showed confirmed, and failed sponsored fundings, in at most two D1 round trips. */
async function recordFundingFacts(db: D1Database, planned: readonly Planned[], nowMs: number): Promise<void> {
  await recordFundingsConfirmed(
    db,
    planned.filter((p) => p.ledgerCatchUp && !p.gate).map((p) => p.row.ledger!.messageHash),
    nowMs,
  );
  const failures = planned.filter((p) => p.sponsoredFailure && p.row.sponsoredPayer);
  if (failures.length > 0)
    await recordSponsoredFundingFailures(
      db,
      failures.map((p) => ({ signature: p.row.fundingSignature, payer: p.row.sponsoredPayer! })),
      nowMs,
    );
}

/** A payment with nothing to pay out this run: closed, or looked at again at its deadline (at least a minute away). */
function idle(p: Planned, nowMs: number): NextLook {
  const { decision } = p;
  const detail = decision.kind === "closed" || decision.kind === "wait" ? decision.why : decision.kind;
  if (decision.kind === "closed") return { state: "closed", nextCheckAtMs: nowMs, detail };
  if (decision.kind === "wait" && decision.untilUnixSeconds !== null && p.payment) {
    const waitMs = Number(decision.untilUnixSeconds - p.chainNow) * 1000;
    return { state: "open", nextCheckAtMs: nowMs + Math.max(KEEPER_MIN_RECHECK_MS, waitMs), detail };
  }
  return { state: "open", nextCheckAtMs: nowMs + RECHECK_WITHOUT_DEADLINE_MS, detail };
}

/** A payout leaves the Payment account to close once its closed_at (settlement + closure delay) has passed. */
function landed(p: Planned, nowMs: number): NextLook {
  const action = actionOf(p);
  const result: EscrowKeeperResult = action === "release" ? "released" : action === "refund" ? "refunded" : "closed";
  const closeAtMs = p.payment && action !== "close" ? nowMs + Number(p.payment.closureDelaySeconds + 1n) * 1000 : null;
  return { state: closeAtMs === null ? "closed" : "open", nextCheckAtMs: closeAtMs ?? nowMs, detail: result, result };
}

function actionOf(p: Planned): EscrowKeeperAction {
  if (p.gate) return NO_KEEPER_ACTION;
  return p.decision.kind === "release" || p.decision.kind === "refund" || p.decision.kind === "close"
    ? p.decision.kind
    : NO_KEEPER_ACTION;
}

function item(p: Planned, signature: string | null, outcome: KeeperItemOutcome, detail: string): KeeperItem {
  const decision = p.gate?.kind === "drop" ? "dropped" : p.gate?.kind === "wait" ? "wait" : p.decision.kind;
  return { paymentPda: p.row.paymentPda, decision, action: actionOf(p), signature, outcome, detail };
}

/** What a landed escrow step did: the closed set the report counts. */
type EscrowKeeperResult = "released" | "refunded" | "closed";

function report(items: KeeperItem[], dryRun: boolean, maxRows: number, results: readonly string[] = []): KeeperReport {
  const count = (result: EscrowKeeperResult) => results.filter((r) => r === result).length;
  return {
    dryRun,
    maxPaymentsPerRun: maxRows,
    scanned: items.length,
    released: count("released"),
    refunded: count("refunded"),
    closed: count("closed"),
    items,
  };
}
