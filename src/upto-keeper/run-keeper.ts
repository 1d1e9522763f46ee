import { address, type Address, type Instruction } from "@solana/kit";
import type { Config } from "../config/load-config";
import { decodeChannel, type Channel } from "../programs/payment-channels/accounts";
import { fetchAccounts, type AccountSnapshot } from "../solana/accounts";
import { confirmAll } from "../solana/confirm-many";
import { optionalSpendingPause, type SpendingPause } from "../solana/fee-payer-floor";
import { getLatestBlockhash } from "../solana/blockhash";
import { describe } from "../solana/transaction-errors";
import { recordFundingsConfirmed } from "../store/escrow-watch";
import { claimDueChannels, recordChannelOutcomes, type ChannelOutcome, type DueChannel } from "../store/upto-channels";
import { channelPaysTo, distributeInstruction, reclaimInstruction, sealInstruction, settleAndSealInstructions } from "../schemes/upto/channel-close";
import { ABANDON_GRACE_SECONDS } from "../schemes/upto/settle";
import { afterFailedAttempt } from "../escrow-keeper/backoff";
import { readFundingStatuses, type FundingStatus } from "../escrow-keeper/funding-status";
import { UPTO_KEEPER_CLAIM_MS, UPTO_KEEPER_CONFIRM_POLLS, maxChannelsWithinBudget } from "./budget";
import { decideChannelStep, type ChannelStep } from "./decide";
import { sendKeeperStep } from "../solana/keeper-send";

const CLOCK_SYSVAR = address("SysvarC1ock11111111111111111111111111111111");
const MIN_RECHECK_MS = 60_000;
const SLOT_MS = 400;
/** After a seal and Distribute that left the channel DISTRIBUTED: when to come for its rent. */
const RECLAIM_RECHECK_MS = 10 * 60_000;

export interface UptoKeeperItem {
  channelId: string;
  step: ChannelStep["kind"] | "dropped";
  signature: string | null;
  outcome: string;
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

interface Planned {
  row: DueChannel;
  step: ChannelStep | null;
  /** Set when the channel is not one this facilitator's ledger shows it opened: nothing is sent for it. */
  gate?: { kind: "drop" | "wait"; why: string };
  ledgerCatchUp?: boolean;
  instructions?: Instruction[];
  /** The step cannot be taken now (counts as a failed attempt: backoff, then the cap). */
  skip?: string;
  chainNow: { unixSeconds: bigint; slot: bigint };
}

/**
 * One run of the upto keeper (Cron Trigger): claim due channels, check each deposit against the settlement ledger,
 * read the channels and the chain clock, then seal and distribute what no voucher can settle any more and reclaim the
 * rent of what is distributed. It spends only on channels whose deposit the ledger shows confirmed here (this
 * facilitator paid their rent), one transaction of one signature and no priority fee per step, and a channel that
 * cannot move backs off and is given up after the escrow keeper's attempt cap.
 */
export async function runUptoKeeper(config: Config, db: D1Database, limit = maxChannelsWithinBudget()): Promise<UptoKeeperReport> {
  const maxChannelsPerRun = maxChannelsWithinBudget();
  const nowMs = Date.now();
  const paused = await optionalSpendingPause(config, "upto keeper closes");
  if (paused) return { ...report(maxChannelsPerRun, []), paused };
  const claimId = crypto.randomUUID();
  const rows = await claimDueChannels(db, claimId, nowMs, UPTO_KEEPER_CLAIM_MS, Math.max(1, Math.min(limit, maxChannelsPerRun)));
  if (rows.length === 0) return report(maxChannelsPerRun, []);

  const planned = await plan(config, rows, nowMs);
  await recordFundingsConfirmed(db, planned.filter((p) => p.ledgerCatchUp && !p.gate).map((p) => p.row.deposit!.messageHash), nowMs);

  const outcomes: ChannelOutcome[] = [];
  const items: UptoKeeperItem[] = [];
  const sent: { planned: Planned; signature: string }[] = [];
  const toSend = planned.filter((p) => p.instructions && !p.skip && !p.gate);
  const blockhash = toSend.length > 0 ? await getLatestBlockhash(config) : null;
  for (const p of planned) {
    if (!p.instructions || p.skip || p.gate || !blockhash) {
      const outcome = withoutSend(p, nowMs);
      outcomes.push(outcome);
      items.push(item(p, null, outcome.outcome));
      continue;
    }
    const step = await sendKeeperStep(config, blockhash, p.instructions);
    if (step.kind === "refused") {
      const outcome = failedAttempt(p, nowMs, step.why, null);
      outcomes.push(outcome);
      items.push(item(p, null, outcome.outcome));
      continue;
    }
    sent.push({ planned: p, signature: step.signature });
  }

  const statuses = await confirmAll(config, sent.map((s) => s.signature), UPTO_KEEPER_CONFIRM_POLLS);
  for (const { planned: p, signature } of sent) {
    const status = statuses.get(signature);
    const action = p.step!.kind;
    if (status?.kind === "confirmed") {
      const done = action === "reclaim";
      const outcome = done ? "reclaimed" : "closed";
      outcomes.push({ channelId: p.row.channelId, state: done ? "closed" : "open", nextCheckAtMs: nowMs + (done ? 0 : RECLAIM_RECHECK_MS), failures: 0, action, signature, outcome, keepClaim: false });
      items.push(item(p, signature, outcome));
    } else if (status?.kind === "failed") {
      const outcome = failedAttempt(p, nowMs, `failed on chain: ${describe(status.err)}`, signature);
      outcomes.push(outcome);
      items.push(item(p, signature, outcome.outcome));
    } else {
      const outcome = "sent, not confirmed within this run";
      outcomes.push({ channelId: p.row.channelId, state: "open", nextCheckAtMs: nowMs + UPTO_KEEPER_CLAIM_MS, failures: p.row.failures, action, signature, outcome, keepClaim: true });
      items.push(item(p, signature, outcome));
    }
  }
  await recordChannelOutcomes(db, claimId, outcomes, Date.now());
  return report(maxChannelsPerRun, items);
}

async function plan(config: Config, rows: readonly DueChannel[], nowMs: number): Promise<Planned[]> {
  const accounts = await fetchAccounts(config, [...rows.map((r) => r.channelId as Address), CLOCK_SYSVAR]);
  const chainNow = clockOf(accounts.get(CLOCK_SYSVAR) ?? null) ?? { unixSeconds: BigInt(Math.floor(nowMs / 1000)), slot: 0n };
  const askChain = rows.filter((r) => r.deposit && r.deposit.scheme === "upto" && r.deposit.state !== "confirmed" && r.deposit.state !== "failed");
  const statuses =
    askChain.length > 0
      ? await readFundingStatuses(config, askChain.map((r) => ({ fundingSignature: r.deposit!.signature, fundingBlockhash: r.openBlockhash, createdAtMs: nowMs })), nowMs)
      : new Map<string, FundingStatus>();

  const planned: Planned[] = [];
  for (const row of rows) {
    const p: Planned = { row, step: null, chainNow };
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
      p.gate = { kind: "drop", why: `channel ${row.channelId} was not opened with this facilitator as payee and rent payer` };
      continue;
    }
    p.step = decideChannelStep(channel, chainNow, BigInt(row.expiresAt + ABANDON_GRACE_SECONDS));
    if (channel) await addInstructions(config, p, channel);
  }
  return planned;
}

/** Only channels whose deposit this facilitator's ledger shows confirmed (or the chain does, ahead of the ledger). */
function depositGate(row: DueChannel, status: FundingStatus | undefined): Planned["gate"] | null {
  const deposit = row.deposit;
  if (!deposit || deposit.scheme !== "upto") return { kind: "drop", why: "no upto deposit of this channel in the settlement ledger" };
  if (deposit.state === "failed") return { kind: "drop", why: `deposit ${deposit.signature} failed (settlement ledger)` };
  if (deposit.state === "confirmed") return null;
  if (!status || status.kind === "unknown") return { kind: "wait", why: `deposit ${deposit.signature} not confirmed yet` };
  if (status.kind === "failed") return { kind: "drop", why: `deposit ${deposit.signature} failed on chain: ${describe(status.err)}` };
  if (status.kind === "expired") return { kind: "drop", why: `deposit ${deposit.signature} never landed and its blockhash expired` };
  return null;
}

async function addInstructions(config: Config, p: Planned, channel: Channel): Promise<void> {
  const channelId = p.row.channelId as Address;
  const step = p.step!;
  if (step.kind === "reclaim") {
    p.instructions = [reclaimInstruction(config, channelId, channel.rentPayer)];
    return;
  }
  if (step.kind !== "seal_and_distribute" && step.kind !== "seal_expired_and_distribute" && step.kind !== "distribute") return;
  const payTo = p.row.payTo as Address;
  if (!(await channelPaysTo(channel, payTo))) {
    p.skip = `channel ${channelId} does not commit its split to ${payTo}`;
    return;
  }
  const distribute = await distributeInstruction(config, channelId, channel, payTo, p.row.tokenProgram as Address);
  if (step.kind === "distribute") p.instructions = [distribute];
  else if (step.kind === "seal_expired_and_distribute") p.instructions = [sealInstruction(config, channelId), distribute];
  else p.instructions = [...settleAndSealInstructions(config, channelId, null), distribute];
}

function withoutSend(p: Planned, nowMs: number): ChannelOutcome {
  const base = { channelId: p.row.channelId, action: "none", signature: null, keepClaim: false, failures: p.row.failures };
  if (p.gate?.kind === "drop") return { ...base, state: "dropped", nextCheckAtMs: nowMs, outcome: p.gate.why };
  if (p.gate?.kind === "wait") return { ...base, state: "open", nextCheckAtMs: nowMs + MIN_RECHECK_MS, outcome: p.gate.why };
  if (p.skip) return failedAttempt(p, nowMs, p.skip, null);
  const step = p.step!;
  if (step.kind === "closed") return { ...base, state: "closed", nextCheckAtMs: nowMs, outcome: step.why };
  if (step.kind === "wait") {
    let waitMs = MIN_RECHECK_MS;
    if (step.untilUnixSeconds !== null) waitMs = Number(step.untilUnixSeconds - p.chainNow.unixSeconds) * 1000;
    else if (step.untilSlot !== null && p.chainNow.slot > 0n) waitMs = Number(step.untilSlot - p.chainNow.slot) * SLOT_MS;
    return { ...base, state: "open", nextCheckAtMs: nowMs + Math.max(MIN_RECHECK_MS, waitMs), outcome: step.why };
  }
  return { ...base, state: "open", nextCheckAtMs: nowMs + MIN_RECHECK_MS, outcome: "no blockhash this run" };
}

function failedAttempt(p: Planned, nowMs: number, outcome: string, signature: string | null): ChannelOutcome {
  const next = afterFailedAttempt(p.row.failures, nowMs);
  const said = next.state === "stuck" ? `gave up after ${next.failures} attempts: ${outcome}` : outcome;
  return { channelId: p.row.channelId, state: next.state, nextCheckAtMs: next.nextCheckAtMs, failures: next.failures, action: p.step?.kind ?? "none", signature, outcome: said, keepClaim: false };
}

/** Clock sysvar: slot u64 @0, …, unix_timestamp i64 @32. */
function clockOf(account: AccountSnapshot | null): { unixSeconds: bigint; slot: bigint } | null {
  if (!account || account.data.length < 40) return null;
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  return { slot: view.getBigUint64(0, true), unixSeconds: view.getBigInt64(32, true) };
}

function item(p: Planned, signature: string | null, outcome: string): UptoKeeperItem {
  return { channelId: p.row.channelId, step: p.gate?.kind === "drop" ? "dropped" : (p.step?.kind ?? "wait"), signature, outcome };
}

function report(maxChannelsPerRun: number, items: UptoKeeperItem[]): UptoKeeperReport {
  return {
    maxChannelsPerRun,
    scanned: items.length,
    closed: items.filter((i) => i.outcome === "closed").length,
    reclaimed: items.filter((i) => i.outcome === "reclaimed").length,
    items,
  };
}
