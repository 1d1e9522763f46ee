import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { type AccountSnapshot, fetchAccounts } from "../../../chain/accounts";
import { type ChainClock, CLOCK_SYSVAR, chainClockOf } from "../../../chain/chain-clock";
import type { SpendingPause } from "../../../chain/fee-payer-floor";
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
import { recordFundingsConfirmed } from "../../../store/settlements";
import { NO_KEEPER_ACTION } from "../../../store/states";
import {
  channelPaysTo,
  distributeInstruction,
  reclaimInstruction,
  sealInstruction,
  settleAndSealInstructions,
} from "../channel-close";
import { refundRedirect } from "../payout-account";
import { type Channel, decodeChannel } from "../program/accounts";
import { ABANDON_GRACE_SECONDS } from "../settle";
import type { UptoKeeperAction } from "../store/states";
import { claimDueChannels, type DueChannel, UPTO_CHANNELS_TABLE } from "../store/upto-channels";
import { maxChannelsWithinBudget } from "./budget";
import { type ChannelStep, decideChannelStep } from "./decide";

const SLOT_MS = 400;
/** After a seal and Distribute that left the channel DISTRIBUTED: when to come for its rent. */
const RECLAIM_RECHECK_MS = 10 * 60_000;

export interface UptoKeeperItem {
  channelId: string;
  step: ChannelStep["kind"] | "dropped";
  signature: string | null;
  /** What the run did with the channel, by value (the row's last_outcome), and in words. */
  outcome: KeeperItemOutcome;
  detail: string;
}

export interface UptoKeeperReport {
  maxChannelsPerRun: number;
  scanned: number;
  /** Channels sealed and distributed (the unclaimed deposit went back to the buyer). */
  closed: number;
  /** Channel accounts whose rent came back to the fee payer. */
  reclaimed: number;
  items: UptoKeeperItem[];
  paused?: SpendingPause;
}

interface Planned extends PlannedStep<DueChannel> {
  step: ChannelStep | null;
  ledgerCatchUp?: boolean;
  chainNow: ChainClock;
  /** The buyer's token account, where a sealing Distribute sends the unclaimed deposit. */
  buyerAccount: { address: Address; snapshot: AccountSnapshot | null };
}

/**
 * Steps that hand rent back to the fee payer (the escrow token account's, the channel account's): 5,000 lamports for ~2
 * M.
 */
const RENT_RETURNING_STEPS: ReadonlySet<ChannelStep["kind"]> = new Set([
  "seal_and_distribute",
  "seal_expired_and_distribute",
  "distribute",
  "reclaim",
]);

async function buyerTokenAccountOf(row: DueChannel): Promise<Address> {
  return (
    await findAssociatedTokenPda({
      owner: row.payer as Address,
      mint: row.asset as Address,
      tokenProgram: row.tokenProgram as Address,
    })
  )[0];
}

/**
 * The upto rail's part of a keeper run (../keeper/run-keeper.ts): due channels, each deposit checked against the
 * settlement ledger, the channels and the chain clock read, then a seal and Distribute of what no voucher can settle
 * any more and a Reclaim of the rent of what is distributed. It spends only on channels whose deposit the ledger shows
 * confirmed here (this facilitator paid their rent), one transaction of one signature and no priority fee per step.
 */
const UPTO_RAIL: KeeperRail<DueChannel, Planned, UptoKeeperItem, UptoKeeperReport> = {
  spending: "upto keeper steps",
  exposureRail: "upto",
  maxRowsPerRun: maxChannelsWithinBudget(),
  table: UPTO_CHANNELS_TABLE,
  keyOf: (row) => row.channelId,
  claim: claimDueChannels,
  plan,
  recordFundingFacts: (db, planned, nowMs) =>
    recordFundingsConfirmed(
      db,
      planned.filter((p) => p.ledgerCatchUp && !p.gate).map((p) => p.row.deposit!.messageHash),
      nowMs,
    ),
  actionOf,
  returnsRent: (p) => p.step !== null && RENT_RETURNING_STEPS.has(p.step.kind),
  idle,
  landed,
  item,
  report,
};

/** One upto keeper run (Cron Trigger). */
export function runUptoKeeper(
  config: Config,
  db: D1Database,
  limit = maxChannelsWithinBudget(),
): Promise<UptoKeeperReport> {
  return runKeeper(config, db, UPTO_RAIL, { dryRun: false, limit });
}

async function plan(config: Config, rows: readonly DueChannel[], nowMs: number): Promise<Planned[]> {
  // Each channel with its buyer's token account (a Distribute's refund goes there) and the chain clock: one batch.
  const buyerAccounts = await Promise.all(rows.map(buyerTokenAccountOf));
  const accounts = await fetchAccounts(config, [
    ...rows.map((r) => r.channelId as Address),
    ...buyerAccounts,
    CLOCK_SYSVAR,
  ]);
  const chainNow = chainClockOf(accounts.get(CLOCK_SYSVAR) ?? null, nowMs);
  const askChain = rows.filter(
    (r) => r.deposit && r.deposit.scheme === "upto" && r.deposit.state !== "confirmed" && r.deposit.state !== "failed",
  );
  const statuses =
    askChain.length > 0
      ? await readFundingStatuses(
          config,
          askChain.map((r) => ({
            fundingSignature: r.deposit!.signature,
            fundingBlockhash: r.openBlockhash,
            createdAtMs: nowMs,
          })),
          nowMs,
        )
      : new Map<string, FundingStatus>();

  const planned: Planned[] = [];
  for (const [i, row] of rows.entries()) {
    const buyerAccount = { address: buyerAccounts[i]!, snapshot: accounts.get(buyerAccounts[i]!) ?? null };
    const p: Planned = { row, step: null, chainNow, buyerAccount };
    planned.push(p);
    const gate = depositGate(row, row.deposit ? statuses.get(row.deposit.signature) : undefined);
    if (gate) {
      p.gate = gate;
      continue;
    }
    p.ledgerCatchUp = row.deposit!.state !== "confirmed";
    const account = accounts.get(row.channelId as Address) ?? null;
    const channel = account && account.owner === config.programs.paymentChannels ? decodeChannel(account.data) : null;
    if (account && !channel) {
      p.gate = { kind: "drop", why: `account ${row.channelId} is not a payment channel` };
      continue;
    }
    if (channel && (channel.rentPayer !== config.feePayer.address || channel.payee !== config.feePayer.address)) {
      p.gate = {
        kind: "drop",
        why: `channel ${row.channelId} was not opened with this facilitator as payee and rent payer`,
      };
      continue;
    }
    p.step = decideChannelStep(channel, chainNow, BigInt(row.expiresAt + ABANDON_GRACE_SECONDS));
    if (channel) await addInstructions(config, p, channel);
  }
  return planned;
}

/** Only channels whose deposit this facilitator's ledger shows confirmed (or the chain does, ahead of the ledger). */
function depositGate(row: DueChannel, status: FundingStatus | undefined): KeeperGate | null {
  const deposit = row.deposit;
  if (deposit?.scheme !== "upto")
    return { kind: "drop", why: "no upto deposit of this channel in the settlement ledger" };
  if (deposit.state === "failed")
    return { kind: "drop", why: `deposit ${deposit.signature} failed (settlement ledger)` };
  if (deposit.state === "confirmed") return null;
  if (!status || status.kind === "unknown")
    return { kind: "wait", why: `deposit ${deposit.signature} not confirmed yet` };
  if (status.kind === "failed")
    return { kind: "drop", why: `deposit ${deposit.signature} failed on chain: ${describe(status.err)}` };
  if (status.kind === "expired")
    return { kind: "drop", why: `deposit ${deposit.signature} never landed and its blockhash expired` };
  return null;
}

async function addInstructions(config: Config, p: Planned, channel: Channel): Promise<void> {
  const channelId = p.row.channelId as Address;
  const step = p.step!;
  if (step.kind === "reclaim") {
    p.instructions = [reclaimInstruction(config, channelId, channel.rentPayer)];
    return;
  }
  if (step.kind !== "seal_and_distribute" && step.kind !== "seal_expired_and_distribute" && step.kind !== "distribute")
    return;
  const payTo = p.row.payTo as Address;
  if (!(await channelPaysTo(channel, payTo))) {
    p.skip = `channel ${channelId} does not commit its split to ${payTo}`;
    return;
  }
  // A seal leaves `settled` as it is; the refund Distribute sends must reach the buyer, never the treasury.
  const redirect = refundRedirect(channel, channel.settled, p.buyerAccount, p.row.tokenProgram as Address);
  if (redirect) {
    p.skip = `${redirect}; waiting for the buyer to fix it`;
    return;
  }
  const distribute = await distributeInstruction(config, channelId, channel, payTo, p.row.tokenProgram as Address);
  if (step.kind === "distribute") p.instructions = [distribute];
  else if (step.kind === "seal_expired_and_distribute")
    p.instructions = [sealInstruction(config, channelId), distribute];
  else p.instructions = [...settleAndSealInstructions(config, channelId, null), distribute];
}

/** A channel with no step to send this run: gone, or looked at again when its wait ends (at least a minute away). */
function idle(p: Planned, nowMs: number): NextLook {
  const step = p.step!;
  if (step.kind === "closed") return { state: "closed", nextCheckAtMs: nowMs, detail: step.why };
  if (step.kind === "wait") {
    let waitMs = KEEPER_MIN_RECHECK_MS;
    if (step.untilUnixSeconds !== null) waitMs = Number(step.untilUnixSeconds - p.chainNow.unixSeconds) * 1000;
    else if (step.untilSlot !== null && p.chainNow.slot > 0n)
      waitMs = Number(step.untilSlot - p.chainNow.slot) * SLOT_MS;
    return { state: "open", nextCheckAtMs: nowMs + Math.max(KEEPER_MIN_RECHECK_MS, waitMs), detail: step.why };
  }
  return { state: "open", nextCheckAtMs: nowMs + KEEPER_MIN_RECHECK_MS, detail: "no blockhash this run" };
}

/** A Reclaim ends the channel; a seal and Distribute leaves its rent to reclaim after the open-slot window. */
function landed(p: Planned, nowMs: number): NextLook {
  const done = p.step!.kind === "reclaim";
  const result: UptoKeeperResult = done ? "reclaimed" : "closed";
  return {
    state: done ? "closed" : "open",
    nextCheckAtMs: nowMs + (done ? 0 : RECLAIM_RECHECK_MS),
    detail: result,
    result,
  };
}

/** The step a channel's look takes: one that sends a transaction, else none (a wait, or nothing left). */
function actionOf(p: Planned): UptoKeeperAction {
  const kind = p.step?.kind;
  return kind === undefined || kind === "closed" || kind === "wait" ? NO_KEEPER_ACTION : kind;
}

function item(p: Planned, signature: string | null, outcome: KeeperItemOutcome, detail: string): UptoKeeperItem {
  return {
    channelId: p.row.channelId,
    step: p.gate?.kind === "drop" ? "dropped" : (p.step?.kind ?? "wait"),
    signature,
    outcome,
    detail,
  };
}

/**
 * What a landed channel step did (closed: sealed and distributed; reclaimed: its rent is back): the set the report
 * counts.
 */
type UptoKeeperResult = "closed" | "reclaimed";

function report(
  items: UptoKeeperItem[],
  _dryRun: boolean,
  maxRows: number,
  results: readonly string[] = [],
): UptoKeeperReport {
  const count = (result: UptoKeeperResult) => results.filter((r) => r === result).length;
  return {
    maxChannelsPerRun: maxRows,
    scanned: items.length,
    closed: count("closed"),
    reclaimed: count("reclaimed"),
    items,
  };
}
