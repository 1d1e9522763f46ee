import type { Address } from "@solana/kit";
import { toBase64 } from "../chain/bytes";
import type { ConfirmationOutcome, SignatureStatus } from "../chain/confirm";
import type { SendOutcome } from "../chain/send-transaction";
import {
  type PaymentFunds,
  rejectionForOnChainFailure,
  rejectionForTransactionError,
} from "../chain/transaction-rejection";
import type { Config } from "../platform/config/load-config";
import { isFacilitatorError } from "../platform/errors/catalogue";
import { log } from "../platform/observability/log";
import { type ClaimRider as GenericClaimRider, mergeRiders, type RefusalRows } from "../store/claim-riders";
import type { SettlementClaim, SettlementRow } from "../store/settlements";
import {
  type AcceptedRequirements,
  blockhashExpired,
  type PaymentRejection,
  type RejectionReason,
  rejection,
} from "../x402/payment-verdict";
import { isSellerRetryOfReportedSuccess } from "./repeat-settle";
import { type ClaimRow, d1Ledger, type SettleLedger, type SettlePorts, settlePorts } from "./settle-ports";

/** How long one isolate may hold the right to (re)send a transaction before another may take over. */
const SUBMIT_LEASE_MS = 15_000;
/** Attempts (delay before each) of the ledger catch-up after a success report D1 could not write. */
const CONFIRMED_WRITE_RETRY_DELAYS_MS = [0, 200, 1_000, 5_000];

export interface SettledPayment {
  ok: true;
  payer: string;
  signature: string;
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

/** What a settle ends with: the answer, and the work the route keeps alive after the response (waitUntil). */
export interface SettleOutcome {
  settlement: Settlement;
  /**
   * Ledger catch-up after a D1 fault, a rail's first-confirmation hook, a fee-payer balance refresh. Failures are the
   * route's to log.
   */
  afterResponse: Promise<unknown>[];
  /**
   * Set by a rail whose settle only locks the buyer's money for a charge made later (upto's deposit): the seller's
   * payment history records it as a deposit, so that the later charge alone counts as the sale.
   */
  deposit?: true;
}

/** An answer that leaves no work behind (e.g. a rail's verification refused the payment). */
export function settledWith(settlement: Settlement): SettleOutcome {
  return { settlement, afterResponse: [] };
}

/**
 * A verified payment of any rail, ready to be sent: what the settle engine needs to know about it, in words that
 * belong to no rail. What it moves (`accepted`: scheme, payTo, asset, amount; `payer` → `merchantWallet`; `funds`)
 * fills the ledger row and words refusals; the rest identifies the transaction.
 */
export interface SettleablePayment {
  accepted: AcceptedRequirements;
  /** SHA-256 of the message bytes (hex): the ledger key. */
  messageHash: string;
  payer: Address;
  merchantWallet: Address;
  /** Native SOL or a token leaves the payer's account: words an insufficient-funds refusal. */
  funds: PaymentFunds;
  recentBlockhash: string;
  /** Program of each top-level instruction: tells which program returned an on-chain error. */
  instructionPrograms?: readonly string[];
  /**
   * What commits with the ledger claim, in its one D1 transaction (store/claim-riders.ts): the exposure budget's
   * booking of what the fee payer pays, a rail's rows. With riders the claim comes before the send, so a rider's
   * refusal (a cap) answers before anything is sent.
   */
  riders?: readonly ClaimRider[];
  /**
   * Runs before every send by the lease holder (so it must be idempotent), e.g. just-in-time vault provisioning; a
   * rejection gives the ledger row back.
   */
  beforeFirstSend?: () => Promise<{ ok: true } | PaymentRejection>;
  /**
   * Runs after the response when this call recorded the confirmation (the first one to do so), or caught the ledger up
   * after its own success report failed; so it must be idempotent.
   */
  onFirstConfirmation?: (nowMs: number) => Promise<unknown>;
  /**
   * Reads what the confirmed transaction did before success is reported, for a payment verified by a simulation of
   * another program (a smart wallet: nothing guarantees the execution did what the simulation did). `paid`: report;
   * a rejection: the payment failed though the transaction landed (recorded, never reported as paid); `unknown`: the
   * node cannot show it yet (pending: the next call reads it again).
   */
  checkLandedOutcome?: (signature: string) => Promise<"paid" | "unknown" | PaymentRejection>;
}

/** One rider of the claim's commit (store/claim-riders.ts) and how its refusal reads as a payment rejection. */
export type ClaimRider = GenericClaimRider<PaymentRejection>;

/**
 * What every rail's verification yields, as the engine needs it, plus the rail's own words for its funds and its hooks.
 */
export function settleablePayment(
  verified: Pick<SettleablePayment, "accepted" | "messageHash" | "payer" | "merchantWallet"> & {
    tx: { recentBlockhash: string; instructions?: readonly { programAddress: string }[] };
  },
  rail: Pick<SettleablePayment, "funds" | "beforeFirstSend" | "onFirstConfirmation" | "riders" | "checkLandedOutcome">,
): SettleablePayment {
  const { accepted, messageHash, payer, merchantWallet } = verified;
  const instructionPrograms = verified.tx.instructions?.map((instruction) => instruction.programAddress);
  return {
    accepted,
    messageHash,
    payer,
    merchantWallet,
    recentBlockhash: verified.tx.recentBlockhash,
    instructionPrograms,
    ...rail,
  };
}

/** The fully signed transaction and its id (the fee payer's signature). */
export interface SignedPayment {
  wireBytes: Uint8Array;
  signature: string;
  /**
   * What the facilitator's fee payer pays the cluster when this lands: its network fee, or 0 when the buyer pays it.
   */
  feePayerFeeLamports: bigint;
  /** Rent the fee payer fronts for accounts this transaction creates (a channel open, say), on top of the fee. */
  feePayerRentLamports?: bigint;
}

/** What the caller of /settle brings besides the body. */
export interface SettleCall {
  /** D1: the rails' own tables (and the settlements table when SVC_SETTLE_LEDGER=d1). */
  db: D1Database;
  /** The exactly-once ledger the engine runs on (settle-ports.ts `settleLedgerOf`). */
  settleLedger: SettleLedger;
  /** The caller's own X-Correlation-ID header (null when absent): the only key to hearing success twice. */
  callerCorrelationId: string | null;
  /** The x402 `payment-identifier` id the payment carried (null or absent: none). */
  paymentId?: string | null;
}

/**
 * Settles a verified, fully signed payment exactly once, and answers `success: true` for it exactly once (any rail).
 *
 * The D1 ledger row keyed by the message hash decides who answers, and who may re-send later (the lease holder);
 * because the signed bytes are fixed, any call can only send the same transaction again, so retries and concurrent
 * calls converge on one on-chain payment. The signature (the transaction id) is returned only once the cluster
 * accepted the transaction. The success report is written before the answer (never after the response).
 */
export function settleSignedPayment(
  config: Config,
  payment: SettleablePayment,
  signed: SignedPayment,
  call: SettleCall,
): Promise<SettleOutcome> {
  return runSettlement(settlePorts(config, call.settleLedger), payment, signed, call);
}

/**
 * The ledger's state and signature of one payment (undefined: no row), read through the engine's ledger port: how a
 * rail asks whether a payment is already the engine's (in flight or settled) before it builds or answers anew.
 */
export function ledgerStateOf(db: D1Database, messageHash: string): ReturnType<SettlePorts["ledger"]["state"]> {
  return d1Ledger(db).state(messageHash);
}

/** The settle state machine over its ports (the Worker's are D1 and the cluster; unit tests script fakes). */
export async function runSettlement(
  ports: SettlePorts,
  payment: SettleablePayment,
  signed: SignedPayment,
  call: Omit<SettleCall, "db" | "settleLedger">,
): Promise<SettleOutcome> {
  const afterResponse: Promise<unknown>[] = [];
  const ctx = settleContext(ports, payment, signed, call, afterResponse);
  const { leaseId } = ctx;
  try {
    // Below the fee payer's settle floor nothing new is sent (503); a payment already in the ledger is still answered.
    const belowFloor = await ctx.chain.floorRefusal(payment.payer, ctx.defer);
    if (belowFloor && (await ctx.ledger.state(payment.messageHash)) === undefined)
      return { settlement: belowFloor, afterResponse };
    const claimRow: ClaimRow = {
      messageHash: payment.messageHash,
      signature: signed.signature,
      scheme: payment.accepted.scheme,
      // The common checks made the line's network this deployment's.
      network: payment.accepted.requirements.network,
      payer: payment.payer,
      payTo: payment.accepted.requirements.payTo,
      merchantWallet: payment.merchantWallet,
      asset: payment.accepted.requirements.asset,
      amount: payment.accepted.amount.toString(),
      lastValidBlockHeight: null,
      maxTimeoutSeconds: payment.accepted.requirements.maxTimeoutSeconds,
      leaseId,
      leaseExpiresAtMs: Date.now() + SUBMIT_LEASE_MS,
      paymentId: call.paymentId ?? null,
    };
    return { settlement: await claimSendAndConfirm(ctx, claimRow, leaseId), afterResponse };
  } catch (error) {
    watchOrphanedWork(afterResponse);
    throw error;
  } finally {
    ctx.chain.close();
  }
}

/**
 * A payment the chain refuses to simulate because it was sent before (already processed, or its blockhash gone since):
 * a smart-wallet payment, verified by simulating it, meets this on every call after the one that sent it. The ledger's
 * row answers it as it answers any later call (reconcile): a stored failure with its signature, a seller's retry of
 * the success it heard, a confirmation not reported yet. Without a row of the same terms the chain's refusal stands:
 * nothing is claimed or sent for a payment the ledger does not hold.
 */
export async function answerRecordedPayment(
  config: Config,
  payment: Omit<SettleablePayment, "payer">,
  signed: SignedPayment,
  call: SettleCall,
  chainRefusal: PaymentRejection,
): Promise<SettleOutcome> {
  const ports = settlePorts(config, call.settleLedger);
  const afterResponse: Promise<unknown>[] = [];
  try {
    const row = await ports.ledger.get(payment.messageHash);
    if (!row || !sameTerms(row, payment.accepted, payment.merchantWallet)) return settledWith(chainRefusal);
    const ctx = settleContext(ports, { ...payment, payer: row.payer as Address }, signed, call, afterResponse);
    return { settlement: await reconcile(ctx, row, ctx.leaseId), afterResponse };
  } catch (error) {
    watchOrphanedWork(afterResponse);
    throw error;
  } finally {
    ports.chain.close();
  }
}

/** The row was claimed for the payment these requirements describe (a repeat under other terms is not this payment). */
function sameTerms(row: SettlementRow, accepted: AcceptedRequirements, merchantWallet: Address): boolean {
  const { requirements } = accepted;
  return (
    row.scheme === accepted.scheme &&
    row.network === requirements.network &&
    row.payTo === requirements.payTo &&
    row.merchantWallet === merchantWallet &&
    row.asset === requirements.asset &&
    row.amount === accepted.amount.toString()
  );
}

function settleContext(
  ports: SettlePorts,
  payment: SettleablePayment,
  signed: SignedPayment,
  call: Omit<SettleCall, "db" | "settleLedger">,
  afterResponse: Promise<unknown>[],
): SettleContext {
  return {
    ...ports,
    payment,
    // This call's id: its lease when it holds the right to send, and the name on the success report it writes.
    leaseId: crypto.randomUUID(),
    wireBase64: toBase64(signed.wireBytes),
    signature: signed.signature,
    feePayerOutlayLamports: signed.feePayerFeeLamports + (signed.feePayerRentLamports ?? 0n),
    callerCorrelationId: call.callerCorrelationId,
    claimPaymentId: call.paymentId ?? null,
    defer: (work) => {
      // Deferred work may fail before the route takes it (a balance read failing while the settle still waits on the
      // chain): marked handled now, so that is not an unhandled rejection; the route still logs the failure.
      work.catch(() => {});
      afterResponse.push(work);
    },
  };
}

/** No outcome reaches the route, so nobody else will watch the work already started (a balance refresh). */
function watchOrphanedWork(afterResponse: Promise<unknown>[]): void {
  for (const work of afterResponse)
    work.catch((failure: unknown) => log("error", "deferred_write_failed", { error: failure }));
}

interface SettleContext extends SettlePorts {
  payment: SettleablePayment;
  /** This call's lease id, also the name on the success report it writes. */
  leaseId: string;
  wireBase64: string;
  signature: string;
  /** Network fee plus fronted rent: what a send lowers the settle floor's balance reading by. */
  feePayerOutlayLamports: bigint;
  callerCorrelationId: string | null;
  /** The payment-identifier id the claim carries (null: none). */
  claimPaymentId: string | null;
  /** Keeps work alive after the response (collected into the outcome). */
  defer: (work: Promise<unknown>) => void;
}

/**
 * The claim comes before the send: it commits, in one D1 transaction, what must be settled before anything goes out —
 * the budget's booking of the fee payer's outlay under its caps, a rail's rows (store/claim-riders.ts) — and a
 * payment-identifier id (a different payment under a used id is refused before it can land); work that must happen
 * once and before any send (e.g. creating the vault) runs after it. A claim that fails sends nothing.
 */
async function claimSendAndConfirm(ctx: SettleContext, claimRow: ClaimRow, leaseId: string): Promise<Settlement> {
  const riders = ctx.payment.riders ?? [];
  let claim: SettlementClaim;
  try {
    claim = await ctx.ledger.claim(claimRow, riders.length > 0 ? mergeRiders(riders) : undefined);
  } catch (error) {
    log("error", "settlement_claim_failed", { signature: ctx.signature, error });
    // Nothing was sent. Should the claim have committed and only its answer been lost, this call's row (and what it
    // booked) is given back after the answer, so a retry need not wait for the lease to run out.
    ctx.defer(ctx.ledger.release(claimRow.messageHash, leaseId));
    return {
      ...rejection(
        "settlement_ledger_unavailable",
        "The settlement ledger could not record this payment's claim, so nothing was sent; retry /settle with the " +
          "same body",
        { code: "SERVICE_UNAVAILABLE" },
      ),
      payer: ctx.payment.payer,
    };
  }
  if (!claim.claimed) return claimRefused(ctx, claim, leaseId);
  return submitAndConfirm(ctx);
}

/** A claim this call did not win: another call's payment (reconcile), an id taken, or a rider's refusal. */
function claimRefused(
  ctx: SettleContext,
  claim: Exclude<SettlementClaim, { claimed: true }>,
  leaseId: string,
): Settlement | Promise<Settlement> {
  if ("paymentIdTakenBy" in claim) return paymentIdConflict(ctx.claimPaymentId ?? "", ctx.payment.payer);
  if ("refused" in claim) return { ...riderRefusal(ctx.payment.riders ?? [], claim.refused), payer: ctx.payment.payer };
  return reconcile(ctx, claim.existing, leaseId);
}

/** The refusal of the first rider whose reads explain it (each rider's rows are its own slice of the reads). */
function riderRefusal(riders: readonly ClaimRider[], rows: RefusalRows): PaymentRejection {
  let at = 0;
  for (const rider of riders) {
    const refused = rider.explain(rows.slice(at, at + rider.reads.length));
    if (refused) return refused;
    at += rider.reads.length;
  }
  throw new Error("settle: the ledger claim was refused by its riders, but none explains why");
}

/** The payment-identifier extension's "same id, different payload": 409, nothing sent. */
function paymentIdConflict(paymentId: string, payer: Address): PaymentRejection {
  return rejection(
    "payment_identifier_conflict",
    `payment-identifier ` +
      `id ${paymentId} already names a different payment to this payTo; reuse an id only to retry the same payment`,
    { code: "CONFLICT", payer },
  );
}

function send(ctx: SettleContext): Promise<SendOutcome> {
  return ctx.chain.send(ctx.wireBase64, ctx.signature, ctx.feePayerOutlayLamports);
}

async function submitAndConfirm(ctx: SettleContext): Promise<Settlement> {
  if (ctx.payment.beforeFirstSend) {
    const prepared = await ctx.payment.beforeFirstSend();
    if (!prepared.ok) return failWithoutSignature(ctx, prepared);
  }
  const [sent] = await Promise.allSettled([send(ctx)]);
  return afterSend(ctx, sent);
}

/** What the claim holder does with the answer to its send. */
async function afterSend(ctx: SettleContext, sent: PromiseSettledResult<SendOutcome>): Promise<Settlement> {
  if (sent.status === "rejected") {
    // Dropped or unanswered: the cluster may have the transaction. Never a failure: pending, and a retry finds out.
    if (isFacilitatorError(sent.reason))
      return pending(ctx, { signatureKnownToCluster: true, cause: sent.reason.message });
    throw sent.reason;
  }
  const outcome = sent.value;
  if (outcome.kind === "rejected") {
    // the same transaction landed (a concurrent send)
    if (outcome.err === "AlreadyProcessed") return confirmAndReport(ctx);
    if (outcome.err === "BlockhashNotFound") return expiredUnlessLanded(ctx);
    // Preflight refused it: the cluster never accepted it, so its signature stays with us.
    return failWithoutSignature(
      ctx,
      rejectionForTransactionError(outcome.err, outcome.logs, ctx.payment.funds, ctx.payment.instructionPrograms),
    );
  }
  return confirmAndReport(ctx);
}

/** Waits for confirmation within the settle budget. Once the cluster has the transaction, only success or pending. */
async function confirmAndReport(ctx: SettleContext): Promise<Settlement> {
  let outcome: ConfirmationOutcome;
  try {
    outcome = await ctx.chain.confirm(ctx.signature);
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
    status = await ctx.chain.status(ctx.signature);
  } catch (error) {
    if (isFacilitatorError(error))
      return pending(ctx, { signatureKnownToCluster: row.state === "pending", cause: error.message });
    throw error;
  }
  if (status.kind === "confirmed") return reportConfirmed(ctx);
  if (status.kind === "failed") return failedOnChain(ctx, status.err);
  if (status.kind === "processing") return confirmAndReport(ctx);

  // Not seen by the cluster. Only the lease holder may (re)send; everyone else hears "pending" at once.
  if (!(await ctx.ledger.takeOverLease(ctx.payment.messageHash, leaseId, SUBMIT_LEASE_MS))) {
    return pending(ctx, { signatureKnownToCluster: row.state === "pending" });
  }
  if (!(await ctx.chain.isBlockhashValid(ctx.payment.recentBlockhash))) return expiredUnlessLanded(ctx);
  return submitAndConfirm(ctx);
}

/**
 * The chain confirmed the payment: the first caller to record it hears success; the rest are duplicates. Success is
 * only ever answered through a report the ledger recorded: a report write that failed, or that committed but whose
 * answer was lost (this call cannot know whether it won), answers pending with the signature, so callers retry and
 * exactly one hears success once the ledger answers (a seller whose lost write did commit hears it on its retry with
 * the same X-Correlation-ID).
 */
async function reportConfirmed(ctx: SettleContext): Promise<Settlement> {
  if (ctx.payment.checkLandedOutcome) {
    let landed: Awaited<ReturnType<NonNullable<SettleablePayment["checkLandedOutcome"]>>>;
    try {
      landed = await ctx.payment.checkLandedOutcome(ctx.signature);
    } catch (error) {
      if (isFacilitatorError(error)) return pending(ctx, { signatureKnownToCluster: true, cause: error.message });
      throw error;
    }
    if (landed === "unknown") {
      return pendingWith(
        ctx,
        ctx.signature,
        `Transaction ${ctx.signature} is confirmed, but the node does not show what it did yet; call /settle again ` +
          `with the same body`,
      );
    }
    if (landed !== "paid") {
      await recordFailure(ctx, landed);
      return { ...landed, payer: ctx.payment.payer, signature: ctx.signature };
    }
  }
  const nowMs = Date.now();
  let won: boolean;
  try {
    won = await ctx.ledger.reportSuccess(ctx.payment.messageHash, ctx.leaseId, ctx.callerCorrelationId, nowMs);
  } catch (error) {
    log("error", "settlement_success_report_failed", { signature: ctx.signature, error });
    ctx.defer(catchUpAfterFailedReport(ctx, nowMs));
    return pendingWith(
      ctx,
      ctx.signature,
      `Transaction ${ctx.signature} is confirmed, but the settlement ledger could not record which call reports it; ` +
        `call /settle again with the same body and X-Correlation-ID: exactly one call hears success (GET ` +
        `/settlements/${ctx.signature} shows the payment meanwhile)`,
    );
  }
  if (won) {
    if (ctx.payment.onFirstConfirmation) ctx.defer(ctx.payment.onFirstConfirmation(nowMs));
    return settled(ctx, false);
  }
  const row = await ctx.ledger.get(ctx.payment.messageHash);
  return row ? repeatOfReportedSuccess(ctx, row) : settled(ctx, false);
}

function repeatOfReportedSuccess(ctx: SettleContext, row: SettlementRow): Settlement {
  if (isSellerRetryOfReportedSuccess(row, ctx.callerCorrelationId, Date.now())) return settled(ctx, true);
  return {
    ...rejection(
      "duplicate_settlement",
      `This payment was already settled ` +
        `(transaction ${row.signature}) and reported as paid once; a seller retrying its own call must resend the ` +
        `same X-Correlation-ID within maxTimeoutSeconds. Look it up with GET /settlements/${row.signature}`,
    ),
    payer: ctx.payment.payer,
    signature: row.signature,
  };
}

/**
 * After the response to a failed success report: the row learns the confirmation (so /settlements and the next
 * /settle need no status read), and a report of this call's that committed unheard is withdrawn (see the store); then
 * the rail's first-confirmation work runs (idempotent; the call that later wins the report runs it again).
 */
async function catchUpAfterFailedReport(ctx: SettleContext, nowMs: number): Promise<void> {
  for (const delayMs of CONFIRMED_WRITE_RETRY_DELAYS_MS) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      await ctx.ledger.recordConfirmationAfterFailedReport(ctx.payment.messageHash, ctx.leaseId, nowMs);
    } catch (error) {
      log("warn", "settlement_confirmed_write_retry_failed", { signature: ctx.signature, error });
      continue;
    }
    await ctx.payment.onFirstConfirmation?.(nowMs);
    return;
  }
}

/**
 * The blockhash is gone (or the cluster no longer knows it). A load-balanced RPC may lag, so look once more for
 * the signature before calling the payment expired: a landed payment is a success, not a rebuild.
 */
async function expiredUnlessLanded(ctx: SettleContext): Promise<Settlement> {
  const status = await ctx.chain.status(ctx.signature).catch(() => null);
  if (status?.kind === "confirmed") return reportConfirmed(ctx);
  if (status?.kind === "failed") return failedOnChain(ctx, status.err);
  if (status?.kind === "processing") return confirmAndReport(ctx);
  if (status === null)
    return pending(ctx, { signatureKnownToCluster: false, cause: "the signature status could not be read" });
  return failWithoutSignature(ctx, blockhashExpired("never_confirmed"));
}

async function pending(
  ctx: SettleContext,
  options: { signatureKnownToCluster: boolean; cause?: string },
): Promise<PendingSettlement> {
  if (options.signatureKnownToCluster) {
    // Release the lease: the next call may re-send at once instead of waiting for it to run out.
    await ctx.ledger
      .update(ctx.payment.messageHash, ["submitting", "pending"], { state: "pending", leaseExpiresAtMs: null })
      .catch((error: unknown) => log("warn", "settlement_pending_write_failed", { signature: ctx.signature, error }));
  }
  return pendingAnswer(ctx, options.signatureKnownToCluster, options.cause);
}

function pendingAnswer(ctx: SettleContext, signatureKnownToCluster: boolean, cause?: string): PendingSettlement {
  const what = signatureKnownToCluster
    ? `Transaction ${ctx.signature} was handed to the cluster`
    : "The payment is being settled by another call";
  const message =
    `${what} but is not confirmed ` +
    `yet${cause ? ` (${cause})` : ""}; call /settle again with the same body and X-Correlation-ID to find out`;
  return pendingWith(ctx, signatureKnownToCluster ? ctx.signature : undefined, message);
}

/** `settlement_pending` (HTTP 202): the signature only once the cluster has (or may have) the transaction. */
function pendingWith(ctx: SettleContext, signature: string | undefined, message: string): PendingSettlement {
  return {
    ok: false,
    pending: true,
    payer: ctx.payment.payer,
    ...(signature ? { signature } : {}),
    reason: "settlement_pending",
    message,
  };
}

/** Executed and failed on chain: the fee was paid and the signature is public, so it is reported. */
async function failedOnChain(ctx: SettleContext, err: unknown): Promise<Settlement> {
  const refused = rejectionForOnChainFailure(err, ctx.payment.funds, ctx.payment.instructionPrograms);
  await recordFailure(ctx, refused);
  return { ...refused, payer: ctx.payment.payer, signature: ctx.signature };
}

/**
 * The cluster never accepted the transaction. An expired blockhash is final (the row says so); anything else
 * (preflight refusal, a provisioning fault) gives the row back, so the same payment may be tried again later.
 */
async function failWithoutSignature(ctx: SettleContext, refused: PaymentRejection): Promise<Settlement> {
  if (refused.reason === "blockhash_expired") await recordFailure(ctx, refused);
  else await ctx.ledger.release(ctx.payment.messageHash, ctx.leaseId);
  return { ...refused, payer: ctx.payment.payer };
}

async function recordFailure(ctx: SettleContext, refused: PaymentRejection): Promise<void> {
  await ctx.ledger.update(ctx.payment.messageHash, ["submitting", "pending"], {
    state: "failed",
    errorReason: refused.reason,
    errorMessage: refused.message,
    leaseExpiresAtMs: null,
  });
}

/**
 * A failure the ledger recorded, answered again the same way: a payment that executed and failed on chain with its
 * signature (its fee was paid and the transaction is public), one whose blockhash expired unseen without (it never
 * reached the cluster).
 */
function storedFailure(ctx: SettleContext, row: SettlementRow): Settlement {
  // The row's reason was written by recordFailure from a RejectionReason.
  const reason = (row.errorReason ?? "settlement_failed") as RejectionReason;
  const expiredUnseen = reason === "blockhash_expired";
  return {
    ...rejection(
      reason,
      row.errorMessage ?? "This payment failed to settle",
      expiredUnseen ? { code: "BLOCKHASH_EXPIRED" } : {},
    ),
    payer: ctx.payment.payer,
    ...(expiredUnseen ? {} : { signature: row.signature }),
  };
}

function settled(ctx: SettleContext, alreadySettled: boolean): SettledPayment {
  const { payment } = ctx;
  return {
    ok: true,
    payer: payment.payer,
    signature: ctx.signature,
    alreadySettled,
    payTo: payment.accepted.requirements.payTo,
    merchantWallet: payment.merchantWallet,
    asset: payment.accepted.requirements.asset,
    amount: payment.accepted.amount.toString(),
  };
}
