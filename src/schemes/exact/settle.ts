import type { Config } from "../../config/load-config";
import type { Env } from "../../env";
import { toBase64, toHex } from "../../solana/bytes";
import { signAsFeePayer } from "../../solana/fee-payer-signature";
import { sendWithPreflight } from "../../solana/send-transaction";
import { confirmSignature, signatureStatus } from "../../solana/confirm";
import { isBlockhashStillValid } from "../../solana/blockhash";
import { claimSettlement, takeOverLease, updateSettlement, type SettlementRow } from "../../store/settlements";
import { rejection, type AcceptedRequirements, type PaymentRejection } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { isFacilitatorError } from "../../errors/catalogue";
import { rejectionForTransactionError } from "./simulate";
import { verifyExactPayment, type VerifiedExactPayment } from "./verify";
import { provisionVaultJustInTime } from "./provision-just-in-time";

/** How long one isolate may hold the right to (re)send a transaction before another may take over. */
const SUBMIT_LEASE_MS = 15_000;

export interface SettledPayment {
  ok: true;
  payer: string;
  signature: string;
  /** True when this call found the payment already settled (a retry) instead of settling it now. */
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
  signature: string;
  reason: "settlement_pending";
  message: string;
}

export type ExactSettlement = SettledPayment | PendingSettlement | (PaymentRejection & { signature?: string });

/**
 * Settles an `exact` payment exactly once. The D1 ledger row keyed by the message hash decides who sends;
 * because the fee payer's signature is deterministic, any later call can only re-send the same transaction,
 * so retries and concurrent calls converge on one on-chain payment.
 */
export async function settleExactPayment(
  config: Config,
  env: Env,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  defer: (work: Promise<unknown>) => void,
): Promise<ExactSettlement> {
  const verified = await verifyExactPayment(config, body, accepted, { simulate: false });
  if (!verified.ok) return verified;

  const { wireBytes, signature } = await signAsFeePayer(config, verified.tx);
  const messageHash = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", verified.tx.messageBytes as Uint8Array<ArrayBuffer>)));
  const leaseId = crypto.randomUUID();
  const claim = await claimSettlement(env.DB, {
    messageHash,
    signature,
    scheme: "exact",
    network: config.network,
    payer: verified.payer,
    payTo: accepted.requirements.payTo,
    merchantWallet: verified.merchantWallet,
    asset: accepted.requirements.asset,
    amount: accepted.amount.toString(),
    lastValidBlockHeight: null,
    leaseId,
    leaseExpiresAtMs: Date.now() + SUBMIT_LEASE_MS,
  });

  const context = { config, env, verified, wireBase64: toBase64(wireBytes), signature, messageHash, defer };
  if (!claim.claimed) return reconcile(context, claim.existing, leaseId);
  return submitAndConfirm(context, { provisionFirst: verified.needsProvisioning });
}

interface SettleContext {
  config: Config;
  env: Env;
  verified: VerifiedExactPayment;
  wireBase64: string;
  signature: string;
  messageHash: string;
  /** Runs work after the response (waitUntil): bookkeeping that a later call could redo by itself. */
  defer: (work: Promise<unknown>) => void;
}

async function submitAndConfirm(ctx: SettleContext, options: { provisionFirst: boolean }): Promise<ExactSettlement> {
  const { config, env, verified, signature } = ctx;
  if (options.provisionFirst) {
    const provisioned = await provisionVaultJustInTime(config, env, verified);
    if (!provisioned.ok) return fail(ctx, provisioned);
  }
  let sent;
  try {
    sent = await sendWithPreflight(config, ctx.wireBase64);
  } catch (error) {
    // The request may or may not have reached the cluster: keep the row open; the next call reconciles.
    if (isFacilitatorError(error)) return { ...rejection("settlement_upstream_error", error.message, { code: "FACILITATOR_UPSTREAM", payer: verified.payer }), signature };
    throw error;
  }
  if (sent.kind === "rejected") {
    const refused = rejectionForTransactionError(sent.err, sent.logs, verified.transfer);
    if (refused.reason !== "duplicate_settlement") return fail(ctx, refused);
    // AlreadyProcessed: the very same transaction is on chain (sent by a concurrent call); confirm it.
  }
  return confirmAndRecord(ctx, config.limits.settleConfirmTimeoutMs);
}

async function confirmAndRecord(ctx: SettleContext, budgetMs: number, alreadySettled = false): Promise<ExactSettlement> {
  const { config, env, verified, signature, messageHash } = ctx;
  const outcome = await confirmSignature(config, signature, budgetMs);
  if (outcome.kind === "confirmed") {
    // Off the response path: if this write is lost, the next call finds the signature confirmed and records it.
    ctx.defer(updateSettlement(env.DB, messageHash, ["submitting", "pending"], { state: "confirmed", leaseExpiresAtMs: null }));
    return settled(ctx, alreadySettled);
  }
  if (outcome.kind === "failed") return fail(ctx, rejectionForTransactionError(outcome.err, [], verified.transfer));
  // Sent but unconfirmed: the row says so (a later call reconciles from it rather than re-sending blindly).
  await updateSettlement(env.DB, messageHash, ["submitting"], { state: "pending" });
  return {
    ok: false,
    pending: true,
    payer: verified.payer,
    signature,
    reason: "settlement_pending",
    message: `Transaction ${signature} was sent but is not confirmed yet; call /settle again with the same body to reconcile`,
  };
}

/** A later call for a payment someone already claimed: report, confirm, or (only if provably unsent) re-send. */
async function reconcile(ctx: SettleContext, row: SettlementRow, leaseId: string): Promise<ExactSettlement> {
  const { config, env, messageHash } = ctx;
  if (row.state === "confirmed") return settled(ctx, true);
  if (row.state === "failed") {
    return { ...rejection(row.errorReason ?? "settlement_failed", row.errorMessage ?? "This payment failed to settle", failureCode(row.errorReason)), payer: ctx.verified.payer, signature: row.signature };
  }
  const status = await signatureStatus(config, ctx.signature);
  if (status.kind === "confirmed") {
    await updateSettlement(env.DB, messageHash, ["submitting", "pending"], { state: "confirmed", leaseExpiresAtMs: null });
    return settled(ctx, true);
  }
  if (status.kind === "failed") return fail(ctx, rejectionForTransactionError(status.err, [], ctx.verified.transfer));
  if (status.kind === "processing") return confirmAndRecord(ctx, config.limits.settleConfirmTimeoutMs, true);

  // Not seen by the cluster. Only the lease holder may (re)send — and it can only send these same bytes.
  if (!(await takeOverLease(env.DB, messageHash, leaseId, SUBMIT_LEASE_MS))) {
    return confirmAndRecord(ctx, config.limits.settleConfirmTimeoutMs, true);
  }
  if (!(await isBlockhashStillValid(config, ctx.verified.tx.recentBlockhash))) {
    return fail(ctx, rejection("blockhash_expired", "The payment was never confirmed and its blockhash has expired; retry build: rebuild and sign the payment again", { code: "BLOCKHASH_EXPIRED" }));
  }
  return submitAndConfirm(ctx, { provisionFirst: ctx.verified.needsProvisioning });
}

async function fail(ctx: SettleContext, refused: PaymentRejection): Promise<ExactSettlement> {
  await updateSettlement(ctx.env.DB, ctx.messageHash, ["submitting", "pending"], {
    state: "failed",
    errorReason: refused.reason,
    errorMessage: refused.message,
    leaseExpiresAtMs: null,
  });
  return { ...refused, payer: ctx.verified.payer, signature: ctx.signature };
}

function settled(ctx: SettleContext, alreadySettled: boolean): SettledPayment {
  const { verified } = ctx;
  return {
    ok: true,
    payer: verified.payer,
    signature: ctx.signature,
    alreadySettled,
    payTo: verified.accepted.requirements.payTo,
    merchantWallet: verified.merchantWallet,
    asset: verified.accepted.requirements.asset,
    amount: verified.accepted.amount.toString(),
  };
}

function failureCode(reason: string | null): { code?: PaymentRejection["code"] } {
  return reason === "blockhash_expired" ? { code: "BLOCKHASH_EXPIRED" } : {};
}
