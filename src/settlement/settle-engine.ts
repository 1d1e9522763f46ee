import type { Address } from "@solana/kit";
import type { Config } from "../config/load-config";
import type { Env } from "../env";
import { toBase64 } from "../solana/bytes";
import { sendWithPreflight, type SendOutcome } from "../solana/send-transaction";
import { confirmSignature, signatureStatus, type SignatureStatus } from "../solana/confirm";
import { watchSignature, type SignatureWatch } from "../solana/signature-watch";
import { isBlockhashStillValid } from "../solana/blockhash";
import { claimSettlement, claimSuccessReport, getSettlement, getSettlementState, releaseSettlement, takeOverLease, updateSettlement, type SettlementRow } from "../store/settlements";
import { isSellerRetryOfReportedSuccess } from "./repeat-settle";
import { rejection, type AcceptedRequirements, type PaymentRejection } from "../x402/payment-verdict";
import { isFacilitatorError } from "../errors/catalogue";
import { log } from "../observability/log";
import { settleFloorRefusal } from "../solana/fee-payer-floor";
import type { PaymentAttempt } from "../store/payment-attempts";
import { rejectionForTransactionError } from "../schemes/exact/simulate";
import type { PaymentTransfer } from "../schemes/exact/verify-rules";

/** How long one isolate may hold the right to (re)send a transaction before another may take over. */
const SUBMIT_LEASE_MS = 15_000;
/** Retries of the ledger write that records a confirmed payment when D1 failed after the chain confirmed. */
const CONFIRMED_WRITE_RETRY_DELAYS_MS = [200, 1_000, 5_000];

export interface SettledPayment {
  ok: true;
  payer: string;
  signature: string;
  /** True when the seller's history row for this success was written with the success report (see SettleCall). */
  historyRecorded: boolean;
  /** True when this answer repeats the success a seller's earlier call with the same correlation id heard. */
  alreadySettled: boolean;
  payTo: string;
  merchantWallet: string;
  asset: string;
  amount: string;
}

export interface PendingSettlement {
  ok: false;
  pending: true;
  payer: string;
  /** Present once the cluster has (or may have) the transaction; withheld while it might never be accepted. */
  signature?: string;
  reason: "settlement_pending";
  message: string;
}

export type Settlement = SettledPayment | PendingSettlement | (PaymentRejection & { signature?: string });

/** A verified payment of any rail, ready to be sent: what the settle engine needs to know about it. */
export interface SettleablePayment {
  accepted: AcceptedRequirements;
  /** SHA-256 of the message bytes (hex): the ledger key. */
  messageHash: string;
  payer: Address;
  merchantWallet: Address;
  recentBlockhash: string;
  /** The payment transfer, for wording errors (null when the rail has no plain transfer). */
  transfer: PaymentTransfer | null;
  /** Program of each top-level instruction: tells which program returned an on-chain error. */
  instructionPrograms?: readonly string[];
  /** Runs before every send by the lease holder (so it must be idempotent), e.g. just-in-time vault provisioning; a rejection gives the ledger row back. */
  beforeFirstSend?: () => Promise<{ ok: true } | PaymentRejection>;
  /** Runs after the response when this call recorded the confirmation (the first one to do so). */
  onFirstConfirmation?: (nowMs: number) => Promise<unknown>;
}

/** What every rail's verification yields, as the engine needs it, plus the rail's own transfer and hooks. */
export function settleablePayment(
  verified: Pick<SettleablePayment, "accepted" | "messageHash" | "payer" | "merchantWallet"> & {
    tx: { recentBlockhash: string; instructions?: readonly { programAddress: string }[] };
  },
  rail: Pick<SettleablePayment, "transfer" | "beforeFirstSend" | "onFirstConfirmation">,
): SettleablePayment {
  const { accepted, messageHash, payer, merchantWallet } = verified;
  const instructionPrograms = verified.tx.instructions?.map((instruction) => instruction.programAddress);
  return { accepted, messageHash, payer, merchantWallet, recentBlockhash: verified.tx.recentBlockhash, instructionPrograms, ...rail };
}

/** The fully signed transaction and its id (the fee payer's signature). */
export interface SignedPayment {
  wireBytes: Uint8Array;
  signature: string;
}

export interface SettleCall {
  /** The caller's own X-Correlation-ID header (null when absent): the only key to hearing success twice. */
  callerCorrelationId: string | null;
  /** Runs work after the response (waitUntil). */
  defer: (work: Promise<unknown>) => void;
  /** The seller's history row for a success of this call, written in the same D1 transaction as the success report. */
  successHistory?: (signature: string, payer: string) => PaymentAttempt;
  /** The x402 `payment-identifier` id the payment carried (null or absent: none). */
  paymentId?: string | null;
  /** The caller's `Authorization: Bearer` token (null or absent: none): upto's delegated settles require it. */
  callerCredential?: string | null;
}


/**
 * Settles a verified, fully signed payment exactly once, and answers `success: true` for it exactly once (any rail).
 *
 * The D1 ledger row keyed by the message hash decides who answers, and who may re-send later (the lease holder);
 * because the signed bytes are fixed, any call can only send the same transaction again, so retries and concurrent
 * calls converge on one on-chain payment. The signature (the transaction id) is returned only once the cluster
 * accepted the transaction.
 */
export async function settleSignedPayment(config: Config, env: Env, verified: SettleablePayment, signed: SignedPayment, call: SettleCall): Promise<Settlement> {
  // Below the fee payer's settle floor nothing new is sent (503); a payment already in the ledger is still answered.
  const belowFloor = settleFloorRefusal(config, verified.payer, call.defer);
  if (belowFloor && (await getSettlementState(env.DB, verified.messageHash)) === undefined) return belowFloor;
  const leaseId = crypto.randomUUID();
  const claimRow = {
    messageHash: verified.messageHash,
    signature: signed.signature,
    scheme: verified.accepted.scheme,
    network: config.network,
    payer: verified.payer,
    payTo: verified.accepted.requirements.payTo,
    merchantWallet: verified.merchantWallet,
    asset: verified.accepted.requirements.asset,
    amount: verified.accepted.amount.toString(),
    lastValidBlockHeight: null,
    maxTimeoutSeconds: verified.accepted.requirements.maxTimeoutSeconds,
    leaseId,
    leaseExpiresAtMs: Date.now() + SUBMIT_LEASE_MS,
    paymentId: call.paymentId ?? null,
  };
  const ctx: SettleContext = { config, env, verified, wireBase64: toBase64(signed.wireBytes), signature: signed.signature, watch: null, ...call };
  try {
    return await claimSendAndConfirm(ctx, claimRow, leaseId);
  } finally {
    ctx.watch?.close();
  }
}

async function claimSendAndConfirm(ctx: SettleContext, claimRow: ClaimRow, leaseId: string): Promise<Settlement> {
  const { env, verified } = ctx;
  if (verified.beforeFirstSend || claimRow.paymentId !== null) {
    // Work that must happen once and before any send (e.g. creating the vault) waits for the claim. So does a payment
    // with a payment-identifier id: a different payment under a used id must be refused before it can land.
    const claim = await claimSettlement(env.DB, claimRow);
    if (!claim.claimed) return "paymentIdTakenBy" in claim ? paymentIdConflict(claimRow.paymentId!, verified.payer) : reconcile(ctx, claim.existing, leaseId);
    return submitAndConfirm(ctx);
  }

  // The claim and the send overlap. This is safe because the signed bytes are fixed: a send by a caller that then
  // loses the claim can only be the same transaction again (the cluster processes it at most once), and a payment
  // whose row says "failed" can no longer land (its blockhash expired, or it already executed and failed). What
  // stays sequential is the answer: success is still reported only through the ledger row.
  // The send is dispatched first, so the cluster starts on it while the claim is written (locally, where D1 shares
  // the Worker's thread, a claim dispatched first held the send back ~0.3 ms in a 200-settle A/B).
  const [sent, claim] = await Promise.allSettled([sendWatched(ctx), claimSettlement(env.DB, claimRow)]);
  if (claim.status === "rejected") {
    // No ledger row, so no success may be answered; if the cluster may have the transaction, say pending with its
    // id (a retry claims the row and finds the landed payment), else the database fault stands.
    if (sent.status === "rejected" || sent.value.kind === "sent" || sent.value.err === "AlreadyProcessed") {
      return pendingAnswer(ctx, true, "the settlement ledger could not be written");
    }
    throw claim.reason;
  }
  if (!claim.value.claimed) return "paymentIdTakenBy" in claim.value ? paymentIdConflict(claimRow.paymentId ?? "", verified.payer) : reconcile(ctx, claim.value.existing, leaseId);
  return afterSend(ctx, sent);
}

type ClaimRow = Parameters<typeof claimSettlement>[1];

/** The payment-identifier extension's "same id, different payload": 409, nothing sent. */
function paymentIdConflict(paymentId: string, payer: Address): PaymentRejection {
  return rejection(
    "payment_identifier_conflict",
    `payment-identifier id ${paymentId} already names a different payment to this payTo; reuse an id only to retry the same payment`,
    { code: "CONFLICT", payer },
  );
}

interface SettleContext extends SettleCall {
  config: Config;
  env: Env;
  verified: SettleablePayment;
  wireBase64: string;
  signature: string;
  /** The confirmation push for this call's own send (null when polling, or before the send). */
  watch: SignatureWatch | null;
}

/**
 * Sends the signed bytes; with `subscribe`, first opens the signature's PubSub watch, so it is in place (or nearly)
 * before the cluster can confirm (the signature is known before the send: it is the fee payer's).
 */
function sendWatched(ctx: SettleContext): Promise<SendOutcome> {
  if (ctx.config.settleConfirmation === "subscribe" && ctx.watch === null) ctx.watch = watchSignature(ctx.config, ctx.signature);
  return sendWithPreflight(ctx.config, ctx.wireBase64);
}

async function submitAndConfirm(ctx: SettleContext): Promise<Settlement> {
  if (ctx.verified.beforeFirstSend) {
    const prepared = await ctx.verified.beforeFirstSend();
    if (!prepared.ok) return failWithoutSignature(ctx, prepared);
  }
  const [sent] = await Promise.allSettled([sendWatched(ctx)]);
  return afterSend(ctx, sent);
}

/** What the claim holder does with the answer to its send. */
async function afterSend(ctx: SettleContext, sent: PromiseSettledResult<SendOutcome>): Promise<Settlement> {
  if (sent.status === "rejected") {
    // Dropped or unanswered: the cluster may have the transaction. Never a failure: pending, and a retry finds out.
    if (isFacilitatorError(sent.reason)) return pending(ctx, { signatureKnownToCluster: true, cause: sent.reason.message });
    throw sent.reason;
  }
  const outcome = sent.value;
  if (outcome.kind === "rejected") {
    if (outcome.err === "AlreadyProcessed") return confirmAndReport(ctx); // the same transaction landed (a concurrent send)
    if (outcome.err === "BlockhashNotFound") return expiredUnlessLanded(ctx);
    // Preflight refused it: the cluster never accepted it, so its signature stays with us.
    return failWithoutSignature(ctx, rejectionForTransactionError(outcome.err, outcome.logs, ctx.verified.transfer, ctx.verified.instructionPrograms));
  }
  return confirmAndReport(ctx);
}

/** Waits for confirmation within the settle budget. Once the cluster has the transaction, only success or pending. */
async function confirmAndReport(ctx: SettleContext): Promise<Settlement> {
  let outcome;
  try {
    outcome = await confirmSignature(ctx.config, ctx.signature, ctx.config.limits.settleConfirmTimeoutMs, ctx.watch);
  } catch (error) {
    if (isFacilitatorError(error)) return pending(ctx, { signatureKnownToCluster: true, cause: error.message });
    throw error;
  }
  if (outcome.kind === "confirmed") return reportConfirmed(ctx);
  if (outcome.kind === "failed") return failedOnChain(ctx, outcome.err);
  return pending(ctx, { signatureKnownToCluster: true });
}

/**
 * A later call for a payment someone already claimed. It finds out with at most one status read and never waits
 * on another caller's lease: report, confirm, re-send the same bytes (only with the lease), or answer pending.
 */
async function reconcile(ctx: SettleContext, row: SettlementRow, leaseId: string): Promise<Settlement> {
  if (row.successReportedAtMs !== null) return repeatOfReportedSuccess(ctx, row);
  if (row.state === "confirmed") return reportConfirmed(ctx);
  if (row.state === "failed") return storedFailure(ctx, row);

  let status: SignatureStatus;
  try {
    status = await signatureStatus(ctx.config, ctx.signature);
  } catch (error) {
    if (isFacilitatorError(error)) return pending(ctx, { signatureKnownToCluster: row.state === "pending", cause: error.message });
    throw error;
  }
  if (status.kind === "confirmed") return reportConfirmed(ctx);
  if (status.kind === "failed") return failedOnChain(ctx, status.err);
  if (status.kind === "processing") return confirmAndReport(ctx);

  // Not seen by the cluster. Only the lease holder may (re)send; everyone else hears "pending" at once.
  if (!(await takeOverLease(ctx.env.DB, ctx.verified.messageHash, leaseId, SUBMIT_LEASE_MS))) {
    return pending(ctx, { signatureKnownToCluster: row.state === "pending" });
  }
  if (!(await isBlockhashStillValid(ctx.config, ctx.verified.recentBlockhash))) return expiredUnlessLanded(ctx);
  return submitAndConfirm(ctx);
}

/** The chain confirmed the payment: the first caller to record it hears success; the rest are duplicates. */
async function reportConfirmed(ctx: SettleContext): Promise<Settlement> {
  const nowMs = Date.now();
  let won: boolean;
  try {
    won = await claimSuccessReport(ctx.env.DB, ctx.verified.messageHash, ctx.callerCorrelationId, nowMs, ctx.successHistory?.(ctx.signature, ctx.verified.payer));
  } catch (error) {
    // The chain is the truth: the payment landed, so the seller hears success; the ledger catches up after.
    log("error", "settlement_confirmed_write_failed", { signature: ctx.signature, error });
    ctx.defer(retryConfirmedWrite(ctx, nowMs));
    return settled(ctx, false);
  }
  if (won) {
    if (ctx.verified.onFirstConfirmation) ctx.defer(ctx.verified.onFirstConfirmation(nowMs));
    return settled(ctx, false, ctx.successHistory !== undefined);
  }
  const row = await getSettlement(ctx.env.DB, ctx.verified.messageHash);
  return row ? repeatOfReportedSuccess(ctx, row) : settled(ctx, false);
}

function repeatOfReportedSuccess(ctx: SettleContext, row: SettlementRow): Settlement {
  if (isSellerRetryOfReportedSuccess(row, ctx.callerCorrelationId, Date.now())) return settled(ctx, true);
  return {
    ...rejection(
      "duplicate_settlement",
      `This payment was already settled (transaction ${row.signature}) and reported as paid once; a seller retrying its own call must resend the same X-Correlation-ID within maxTimeoutSeconds. Look it up with GET /settlements/${row.signature}`,
    ),
    payer: ctx.verified.payer,
    signature: row.signature,
  };
}

async function retryConfirmedWrite(ctx: SettleContext, nowMs: number): Promise<void> {
  for (const delayMs of CONFIRMED_WRITE_RETRY_DELAYS_MS) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      await claimSuccessReport(ctx.env.DB, ctx.verified.messageHash, ctx.callerCorrelationId, nowMs);
      return;
    } catch (error) {
      log("warn", "settlement_confirmed_write_retry_failed", { signature: ctx.signature, error });
    }
  }
}

/**
 * The blockhash is gone (or the cluster no longer knows it). A load-balanced RPC may lag, so look once more for
 * the signature before calling the payment expired: a landed payment is a success, not a rebuild.
 */
async function expiredUnlessLanded(ctx: SettleContext): Promise<Settlement> {
  const status = await signatureStatus(ctx.config, ctx.signature).catch(() => null);
  if (status?.kind === "confirmed") return reportConfirmed(ctx);
  if (status?.kind === "failed") return failedOnChain(ctx, status.err);
  if (status?.kind === "processing") return confirmAndReport(ctx);
  if (status === null) return pending(ctx, { signatureKnownToCluster: false, cause: "the signature status could not be read" });
  return failWithoutSignature(
    ctx,
    rejection("blockhash_expired", "The payment was never confirmed and its blockhash has expired; retry build: rebuild and sign the payment again", { code: "BLOCKHASH_EXPIRED" }),
  );
}

async function pending(ctx: SettleContext, options: { signatureKnownToCluster: boolean; cause?: string }): Promise<PendingSettlement> {
  if (options.signatureKnownToCluster) {
    // Release the lease: the next call may re-send at once instead of waiting for it to run out.
    await updateSettlement(ctx.env.DB, ctx.verified.messageHash, ["submitting", "pending"], { state: "pending", leaseExpiresAtMs: null }).catch((error: unknown) =>
      log("warn", "settlement_pending_write_failed", { signature: ctx.signature, error }),
    );
  }
  return pendingAnswer(ctx, options.signatureKnownToCluster, options.cause);
}

function pendingAnswer(ctx: SettleContext, signatureKnownToCluster: boolean, cause?: string): PendingSettlement {
  const what = signatureKnownToCluster ? `Transaction ${ctx.signature} was handed to the cluster` : "The payment is being settled by another call";
  return {
    ok: false,
    pending: true,
    payer: ctx.verified.payer,
    ...(signatureKnownToCluster ? { signature: ctx.signature } : {}),
    reason: "settlement_pending",
    message: `${what} but is not confirmed yet${cause ? ` (${cause})` : ""}; call /settle again with the same body and X-Correlation-ID to find out`,
  };
}

/** Executed and failed on chain: the fee was paid and the signature is public, so it is reported. */
async function failedOnChain(ctx: SettleContext, err: unknown): Promise<Settlement> {
  const refused = rejectionForTransactionError(err, [], ctx.verified.transfer, ctx.verified.instructionPrograms);
  await recordFailure(ctx, refused);
  return { ...refused, payer: ctx.verified.payer, signature: ctx.signature };
}

/**
 * The cluster never accepted the transaction. An expired blockhash is final (the row says so); anything else
 * (preflight refusal, a provisioning fault) gives the row back, so the same payment may be tried again later.
 */
async function failWithoutSignature(ctx: SettleContext, refused: PaymentRejection): Promise<Settlement> {
  if (refused.reason === "blockhash_expired") await recordFailure(ctx, refused);
  else await releaseSettlement(ctx.env.DB, ctx.verified.messageHash);
  return { ...refused, payer: ctx.verified.payer };
}

async function recordFailure(ctx: SettleContext, refused: PaymentRejection): Promise<void> {
  await updateSettlement(ctx.env.DB, ctx.verified.messageHash, ["submitting", "pending"], {
    state: "failed",
    errorReason: refused.reason,
    errorMessage: refused.message,
    leaseExpiresAtMs: null,
  });
}

function storedFailure(ctx: SettleContext, row: SettlementRow): Settlement {
  return {
    ...rejection(row.errorReason ?? "settlement_failed", row.errorMessage ?? "This payment failed to settle", row.errorReason === "blockhash_expired" ? { code: "BLOCKHASH_EXPIRED" } : {}),
    payer: ctx.verified.payer,
  };
}

function settled(ctx: SettleContext, alreadySettled: boolean, historyRecorded = false): SettledPayment {
  const { verified } = ctx;
  return {
    ok: true,
    payer: verified.payer,
    signature: ctx.signature,
    historyRecorded,
    alreadySettled,
    payTo: verified.accepted.requirements.payTo,
    merchantWallet: verified.merchantWallet,
    asset: verified.accepted.requirements.asset,
    amount: verified.accepted.amount.toString(),
  };
}
