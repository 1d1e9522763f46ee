import { type Address, createNoopSigner, type Instruction } from "@solana/kit";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import { BLOCKHASH_LIFETIME_SECONDS, getLatestBlockhash } from "../../chain/blockhash";
import { compileUnsignedTransaction, type UnsignedTransactionFields } from "../../chain/unsigned-transaction";
import type { Config } from "../../platform/config/load-config";
import { badRequest, FacilitatorError } from "../../platform/errors/catalogue";
import { Base58Address } from "../../x402/schemas";
import { decodePayment, PAYMENT_STATE, type Payment } from "./program/accounts";
import {
  getApproveDeliveryInstruction,
  getDisputePaymentInstruction,
  getSubmitDeliveryInstruction,
} from "./program/instructions";
import { parsePaymentUidHex, paymentUidToHex } from "./program/payment-uid";
import { findBankPda, findEscrowConfigPda, findEscrowPda, findPaymentExtPda, findPaymentPda } from "./program/pda";

/**
 * Lifecycle builders for one party of a funded SLA-Escrow payment (docs/facilitator-spec.md §4.2, docs/wire-notes.md
 * "Builders"): `/build-sla-escrow-submit-delivery-tx` (the seller), `/build-sla-escrow-approve-tx` and
 * `/build-sla-escrow-dispute-tx` (the buyer). The transaction is signed only by that party, who is also the fee payer
 * unless `feePayer` names another wallet.
 *
 * One batched read (Bank, Escrow, Payment) runs in parallel with getLatestBlockhash. The rail counts as
 * configured when the program's Bank and the mint's Escrow account exist on the cluster; otherwise 501.
 * What the program would reject is refused here with a 400 that says why.
 */

export const Hash32Hex = v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)"));
export const PaymentUidHex = v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)"));

export const BuildSubmitDeliveryRequestSchema = v.object({
  seller: Base58Address,
  mint: Base58Address,
  paymentUidHex: PaymentUidHex,
  deliveryHash: Hash32Hex,
  feePayer: v.optional(Base58Address),
});
export const BuildApproveRequestSchema = v.object({
  buyer: Base58Address,
  mint: Base58Address,
  paymentUidHex: PaymentUidHex,
  deliveryHash: Hash32Hex,
  feePayer: v.optional(Base58Address),
});

export const BuildDisputeRequestSchema = v.object({
  buyer: Base58Address,
  mint: Base58Address,
  paymentUidHex: PaymentUidHex,
  /** Defaults to 32 zero bytes (no reason recorded). */
  disputeReasonHash: v.optional(Hash32Hex),
  feePayer: v.optional(Base58Address),
});

export interface PartyBuildResponse extends UnsignedTransactionFields {
  notes: string[];
  paymentUidHex: string;
  paymentPda: Address;
  paymentExtPda: Address;
  programId: Address;
}

export interface PaymentContext {
  programId: Address;
  bank: Address;
  config: Address;
  escrow: Address;
  payment: Address;
  paymentExt: Address;
  /** Only v0.5 payments (FundPaymentV2) have one; disputes and splits need it. */
  hasPaymentExt: boolean;
  state: Payment;
}

/**
 * Reads the payment and refuses a missing rail (501), a missing payment or a settled one (400).
 * `openStates: "any-unsettled"` also admits states the ABI does not name (the program's dispute state):
 * only Released and Refunded are final.
 */
export async function loadPayment(
  config: Config,
  mint: Address,
  paymentUidHex: string,
  openStates: "funded" | "any-unsettled" = "funded",
  alsoRead: Address[] = [],
): Promise<{
  context: PaymentContext;
  blockhash: Awaited<ReturnType<typeof getLatestBlockhash>>;
  accounts: Awaited<ReturnType<typeof fetchAccounts>>;
}> {
  const programId = config.programs.slaEscrow;
  const uid = parsePaymentUidHex(paymentUidHex);
  if (uid === null) throw badRequest("paymentUidHex must be 64 hex characters");
  const [[bank], [escrowConfig]] = await Promise.all([findBankPda(programId), findEscrowConfigPda(programId)]);
  const [[escrow], [payment], [paymentExt]] = await Promise.all([
    findEscrowPda(programId, mint, bank),
    findPaymentPda(programId, uid, bank),
    findPaymentExtPda(programId, uid, bank),
  ]);
  const [accounts, blockhash] = await Promise.all([
    fetchAccounts(config, [bank, escrow, payment, paymentExt, ...alsoRead]),
    getLatestBlockhash(config),
  ]);
  if (!accounts.get(bank) || !accounts.get(escrow)) {
    throw new FacilitatorError(
      "NOT_IMPLEMENTED",
      `the SLA-Escrow rail is not configured for ` +
        `mint ${mint} on this cluster (program ${programId}: bank or escrow account missing)`,
    );
  }
  const account = accounts.get(payment);
  const state = account && account.owner === programId ? decodePayment(account.data) : null;
  if (state === null)
    throw badRequest(`no SLA-Escrow payment ${paymentUidHex} for mint ${mint} (expected at ${payment})`);
  if (state.mint !== mint) throw badRequest(`payment ${paymentUidHex} escrows mint ${state.mint}, not ${mint}`);
  const settled = state.state === PAYMENT_STATE.RELEASED || state.state === PAYMENT_STATE.REFUNDED;
  const open =
    openStates === "any-unsettled"
      ? !settled
      : state.state === PAYMENT_STATE.FUNDED || state.state === PAYMENT_STATE.FUNDED_EXTENDED;
  if (!open) {
    throw badRequest(`payment ${paymentUidHex} is no longer funded (state ${state.state}): nothing left to act on`);
  }
  const ext = accounts.get(paymentExt);
  const hasPaymentExt = ext !== null && ext !== undefined && ext.owner === programId;
  return {
    context: { programId, bank, config: escrowConfig, escrow, payment, paymentExt, hasPaymentExt, state },
    blockhash,
    accounts,
  };
}

export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

/** The program checks the signer against the party it recorded; so do we, before anything is built. */
export function requireParty(recorded: Address, claimed: Address, role: "seller" | "buyer", action: string): void {
  if (recorded !== claimed) throw badRequest(`only the recorded ${role} ${recorded} may ${action}, not ${claimed}`);
}

export function feeNote(feePayer: Address | undefined): string {
  return feePayer ? `${feePayer} pays the fee` : "the signer pays the fee";
}

function isZero(bytes: ArrayLike<number>): boolean {
  return Array.prototype.every.call(bytes, (b: number) => b === 0);
}

export async function buildSubmitDelivery(
  config: Config,
  request: v.InferOutput<typeof BuildSubmitDeliveryRequestSchema>,
  nowUnixSeconds = BigInt(Math.floor(Date.now() / 1000)),
): Promise<PartyBuildResponse> {
  const { context, blockhash } = await loadPayment(config, request.mint, request.paymentUidHex);
  const { state } = context;
  requireParty(state.seller, request.seller, "seller", "submit delivery");
  const cutoff = state.expiresAtUnixSeconds - state.deliveryCutoffSeconds;
  if (nowUnixSeconds > cutoff) {
    throw badRequest(
      `delivery is too late: the program refuses SubmitDelivery after expires_at − delivery_cutoff ` +
        `(${cutoff}, now ${nowUnixSeconds}) with DeliveryTooLateForOracle`,
    );
  }
  const instruction = getSubmitDeliveryInstruction({
    ...context,
    seller: createNoopSigner(request.seller),
    deliveryHash: hexBytes(request.deliveryHash),
  });
  return partyTransaction(context, request.seller, request.feePayer, instruction, blockhash, [
    `SubmitDelivery signed by the seller ${request.seller}; ${feeNote(request.feePayer)}.`,
  ]);
}

export async function buildApprove(
  config: Config,
  request: v.InferOutput<typeof BuildApproveRequestSchema>,
): Promise<PartyBuildResponse> {
  const { context, blockhash } = await loadPayment(config, request.mint, request.paymentUidHex);
  const { state } = context;
  requireParty(state.buyer, request.buyer, "buyer", "approve delivery");
  if (state.deliveryTimestampUnixSeconds === 0n && isZero(state.deliveryHash)) {
    throw badRequest(`payment ${request.paymentUidHex} has no delivery submitted yet: nothing to approve`);
  }
  const instruction = getApproveDeliveryInstruction({
    ...context,
    buyer: createNoopSigner(request.buyer),
    deliveryHash: hexBytes(request.deliveryHash),
  });
  return partyTransaction(context, request.buyer, request.feePayer, instruction, blockhash, [
    `ApproveDelivery signed by the buyer ${request.buyer}; ${feeNote(request.feePayer)}.`,
  ]);
}

export async function buildDispute(
  config: Config,
  request: v.InferOutput<typeof BuildDisputeRequestSchema>,
): Promise<PartyBuildResponse> {
  const { context, blockhash } = await loadPayment(config, request.mint, request.paymentUidHex);
  const { state } = context;
  requireParty(state.buyer, request.buyer, "buyer", "dispute the payment");
  if (!context.hasPaymentExt) {
    throw badRequest(
      `payment ${request.paymentUidHex} was funded without a PaymentExt (FundPayment, not FundPaymentV2): it cannot ` +
        `be disputed`,
    );
  }
  const disputeReasonHash = request.disputeReasonHash ? hexBytes(request.disputeReasonHash) : new Uint8Array(32);
  const instruction = getDisputePaymentInstruction({
    ...context,
    buyer: createNoopSigner(request.buyer),
    disputeReasonHash,
  });
  const built = partyTransaction(context, request.buyer, request.feePayer, instruction, blockhash, [
    `DisputePayment signed by the ` +
      `buyer ${request.buyer}; ${feeNote(request.feePayer)}. Release and refund stop until the adjudicator resolves ` +
      `the payment.`,
  ]);
  return built;
}

export function partyTransaction(
  context: PaymentContext,
  signer: Address,
  feePayer: Address | undefined,
  instruction: Instruction,
  blockhash: Awaited<ReturnType<typeof getLatestBlockhash>>,
  notes: string[],
): PartyBuildResponse {
  const payer = feePayer ?? signer;
  const { transaction, signerPubkeys } = compileUnsignedTransaction({
    feePayer: payer,
    blockhash,
    instructions: [instruction],
  });
  return {
    x402Version: 2,
    transaction,
    payerSignatureIndex: signerPubkeys.indexOf(signer),
    recentBlockhash: blockhash.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    feePayer: payer,
    payer: signer,
    signerPubkeys,
    notes,
    paymentUidHex: paymentUidToHex(context.state.paymentUid),
    paymentPda: context.payment,
    // pr402's BuildSlaEscrowV2TxResponse requires it: the derived address, whether or not the payment is extended.
    paymentExtPda: context.paymentExt,
    programId: context.programId,
  };
}
