import { type Address, createNoopSigner } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import * as v from "valibot";
import { ZERO_ADDRESS } from "../../chain/program/zero-address";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { Config } from "../../platform/config/load-config";
import { badRequest } from "../../platform/errors/catalogue";
import { Base58Address } from "../../x402/schemas";
import {
  feeNote,
  Hash32Hex,
  hexBytes,
  loadPayment,
  type PartyBuildResponse,
  PaymentUidHex,
  partyTransaction,
} from "./build-party-tx";
import { wholeNumber } from "./build-payment-v2";
import {
  getAcceptMutualActionInstruction,
  getProposeMutualActionInstruction,
  getResolveWithSplitInstruction,
  MAX_PAYMENT_TTL_SECONDS,
  MAX_SELLER_SPLIT_BPS,
  MUTUAL_ACTION,
} from "./program/instructions";
import { findEscrowSolStoragePda, NATIVE_SOL_ESCROW_MINT } from "./program/pda";

/**
 * The two-party and adjudicator steps of a FundPaymentV2 payment (docs/facilitator-spec.md §4.2, docs/wire-notes.md
 * "Builders"): `/build-sla-escrow-mutual-action-tx` (Propose 9 / Accept 10, the buyer or the seller) and
 * `/build-sla-escrow-resolve-split-tx` (ResolveWithSplit 12, the adjudicator). Same shape as the party builders: one
 * batched read next to getLatestBlockhash, refusals before the signer pays a fee to learn them.
 */

export const BuildMutualActionRequestSchema = v.object({
  party: Base58Address,
  mint: Base58Address,
  paymentUidHex: PaymentUidHex,
  /** true: AcceptMutualAction (10) of the other party's proposal; false: ProposeMutualAction (9). */
  accept: v.boolean("must be true or false"),
  action: v.picklist(
    [MUTUAL_ACTION.ROTATE_ADJUDICATOR, MUTUAL_ACTION.EXTEND_TTL],
    "must be 1 (rotate adjudicator) or 2 (extend TTL)",
  ),
  /** Seconds to add for action 2 (a number or a decimal string); 0 for action 1. */
  value: v.optional(wholeNumber(0x7fff_ffff_ffff_ffffn, "seconds"), "0"),
  /** The new adjudicator for action 1. */
  pubkey: v.optional(Base58Address),
  feePayer: v.optional(Base58Address),
});

export const BuildResolveSplitRequestSchema = v.object({
  adjudicator: Base58Address,
  mint: Base58Address,
  paymentUidHex: PaymentUidHex,
  sellerBps: v.pipe(
    v.number("must be a number"),
    v.integer("must be a whole number"),
    v.minValue(0, "must be at least 0"),
    v.maxValue(MAX_SELLER_SPLIT_BPS, `must be at most ${MAX_SELLER_SPLIT_BPS} (everything to the seller)`),
  ),
  /** Optional, 0 by default, as in pr402 (serde default of BuildResolveWithSplitTxRequest). */
  resolutionReason: v.optional(
    v.pipe(
      v.number("must be a number"),
      v.integer("must be a whole number"),
      v.minValue(0, "must be at least 0"),
      v.maxValue(65_535, "must fit in u16"),
    ),
    0,
  ),
  /** Defaults to 32 zero bytes. */
  resolutionHash: v.optional(Hash32Hex),
  /** Must equal Payment.delivery_hash (64 zero hex digits when nothing was delivered). */
  expectedDeliveryHash: Hash32Hex,
  seller: Base58Address,
  buyer: Base58Address,
  tokenProgram: v.optional(
    v.picklist([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS], "must be the SPL Token or Token-2022 program"),
  ),
  feePayer: v.optional(Base58Address),
});

const toHex = (bytes: ArrayLike<number>) =>
  Array.from(bytes as ArrayLike<number>, (b) => b.toString(16).padStart(2, "0")).join("");

export async function buildMutualAction(
  config: Config,
  request: v.InferOutput<typeof BuildMutualActionRequestSchema>,
): Promise<PartyBuildResponse> {
  const value = BigInt(request.value);
  if (request.action === MUTUAL_ACTION.ROTATE_ADJUDICATOR) {
    if (request.pubkey === undefined || request.pubkey === ZERO_ADDRESS) {
      throw badRequest("pubkey: rotating the adjudicator (action 1) needs the new adjudicator's non-zero pubkey");
    }
  } else if (value < 1n || value > MAX_PAYMENT_TTL_SECONDS) {
    throw badRequest(`value: extending the TTL (action 2) needs 1..${MAX_PAYMENT_TTL_SECONDS} seconds, got ${value}`);
  }
  const { context, blockhash } = await loadPayment(config, request.mint, request.paymentUidHex);
  const { state } = context;
  const role = request.party === state.buyer ? "buyer" : request.party === state.seller ? "seller" : null;
  if (role === null) {
    throw badRequest(
      `only the recorded ` +
        `buyer ${state.buyer} or seller ${state.seller} may propose or accept a mutual action, not ${request.party}`,
    );
  }
  if (!context.hasPaymentExt) {
    throw badRequest(
      `payment ${request.paymentUidHex} was funded without a PaymentExt (FundPayment, not FundPaymentV2): it has no ` +
        `mutual actions`,
    );
  }
  const data = {
    action: request.action,
    value: request.action === MUTUAL_ACTION.EXTEND_TTL ? value : 0n,
    pubkey: request.pubkey ?? ZERO_ADDRESS,
  };
  const input = { ...context, party: createNoopSigner(request.party), ...data };
  const instruction = request.accept
    ? getAcceptMutualActionInstruction(input)
    : getProposeMutualActionInstruction(input);
  const what =
    request.action === MUTUAL_ACTION.ROTATE_ADJUDICATOR
      ? `rotate the adjudicator to ${request.pubkey}`
      : `extend the TTL by ${value} s`;
  return partyTransaction(context, request.party, request.feePayer, instruction, blockhash, [
    request.accept
      ? `AcceptMutualAction ` +
        `(${what}) signed by ` +
        `the ${role} ${request.party}: the other party must have proposed exactly this; ${feeNote(request.feePayer)}.`
      : `ProposeMutualAction ` +
        `(${what}) signed by ` +
        `the ${role} ${request.party}: it takes effect when the other party accepts the same ` +
        `data; ${feeNote(request.feePayer)}.`,
  ]);
}

export async function buildResolveSplit(
  config: Config,
  request: v.InferOutput<typeof BuildResolveSplitRequestSchema>,
): Promise<PartyBuildResponse> {
  const isSol = request.mint === NATIVE_SOL_ESCROW_MINT;
  // The mint rides in the payment's batched read, so the token program needs no second round trip.
  const { context, blockhash, accounts } = await loadPayment(
    config,
    request.mint,
    request.paymentUidHex,
    "any-unsettled",
    isSol ? [] : [request.mint],
  );
  const { state } = context;
  if (state.buyer !== request.buyer)
    throw badRequest(`buyer: the payment's recorded buyer is ${state.buyer}, not ${request.buyer}`);
  if (state.seller !== request.seller)
    throw badRequest(`seller: the payment's recorded seller is ${state.seller}, not ${request.seller}`);
  if (!context.hasPaymentExt) {
    throw badRequest(
      `payment ${request.paymentUidHex} was funded without a PaymentExt (FundPayment, not FundPaymentV2): it has no ` +
        `adjudicator to split it`,
    );
  }
  if (toHex(state.deliveryHash) !== request.expectedDeliveryHash.toLowerCase()) {
    throw badRequest(
      `expectedDeliveryHash: the payment's delivery hash ` +
        `is ${toHex(state.deliveryHash)}; the program refuses a split against any other`,
    );
  }
  // The adjudicator itself lives in PaymentExt, whose layout the ABI leaves open: the program checks it.
  const data = {
    sellerBps: request.sellerBps,
    reason: request.resolutionReason,
    resolutionHash: request.resolutionHash ? hexBytes(request.resolutionHash) : new Uint8Array(32),
    expectedDeliveryHash: hexBytes(request.expectedDeliveryHash),
  };
  const common = {
    ...context,
    ...data,
    adjudicator: createNoopSigner(request.adjudicator),
    seller: request.seller,
    buyer: request.buyer,
  };
  let instruction: ReturnType<typeof getResolveWithSplitInstruction>;
  if (isSol) {
    const [solStorage] = await findEscrowSolStoragePda(
      context.programId,
      NATIVE_SOL_ESCROW_MINT,
      context.bank,
      context.escrow,
    );
    instruction = getResolveWithSplitInstruction({ ...common, kind: "sol", solStorage });
  } else {
    const mintAccount = accounts.get(request.mint);
    const tokenProgram = request.tokenProgram ?? mintAccount?.owner;
    if (tokenProgram !== TOKEN_PROGRAM_ADDRESS && tokenProgram !== TOKEN_2022_PROGRAM_ADDRESS) {
      throw badRequest(`mint: ${request.mint} is not an SPL Token or Token-2022 mint on this cluster`);
    }
    if (mintAccount && mintAccount.owner !== tokenProgram) {
      throw badRequest(`tokenProgram: mint ${request.mint} belongs to ${mintAccount.owner}, not ${tokenProgram}`);
    }
    const ata = (owner: Address) =>
      findAssociatedTokenPda({ owner, mint: request.mint, tokenProgram }).then(([address]) => address);
    const [escrowAta, sellerAta, buyerAta, adjudicatorAta] = await Promise.all([
      ata(context.escrow),
      ata(request.seller),
      ata(request.buyer),
      ata(request.adjudicator),
    ]);
    instruction = getResolveWithSplitInstruction({
      ...common,
      kind: "spl",
      mint: request.mint,
      escrowAta,
      sellerAta,
      buyerAta,
      adjudicatorAta,
      tokenProgram,
    });
  }
  return partyTransaction(context, request.adjudicator, request.feePayer, instruction, blockhash, [
    `ResolveWithSplit signed by the ` +
      `adjudicator ${request.adjudicator}: ${request.sellerBps} bps of the payment (after the adjudicator's tip) to ` +
      `the seller, the rest to the buyer, settled atomically; ${feeNote(request.feePayer)}.`,
    "The program checks the signer against PaymentExt.adjudicator (the oracle unless the parties rotated it); a " +
      "mismatch fails on chain.",
  ]);
}
