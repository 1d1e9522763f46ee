import { createNoopSigner } from "@solana/kit";
import * as v from "valibot";
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
import { resolvePaymentUid } from "./build-payment";
import { RESOLUTION_STATE } from "./program/accounts";
import { getConfirmOracleInstruction } from "./program/instructions";
import { paymentUidToHex } from "./program/payment-uid";

/**
 * `POST /oracle/build-confirm` (pr402's buildOracleConfirmTx): the oracle's unsigned ConfirmOracle verdict for a
 * funded payment. The payment is named as pr402 does (`paymentUid`, the string form) or by `paymentUidHex`.
 * Only the recorded oracle may sign it; the oracle (or `feePayer`) pays the fee, never this facilitator.
 */
export const BuildOracleConfirmRequestSchema = v.object({
  oracleAuthority: Base58Address,
  mint: Base58Address,
  paymentUid: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.minLength(1, "must not be empty"),
      v.maxLength(64, "must be at most 64 characters"),
    ),
  ),
  paymentUidHex: v.optional(PaymentUidHex),
  deliveryHash: Hash32Hex,
  /** Optional; empty or absent = 32 zero bytes, as pr402. */
  resolutionHash: v.optional(v.union([v.literal(""), Hash32Hex], "must be 64 hex characters (32 bytes) or empty")),
  /** 1 approved, 2 rejected (RESOLUTION_STATE); pr402 documents u8, the program knows only these two verdicts. */
  resolutionState: v.pipe(
    v.number("must be a number"),
    v.integer("must be a whole number"),
    v.minValue(0, "must be at least 0"),
    v.maxValue(255, "must fit in u8"),
  ),
  resolutionReason: v.pipe(
    v.number("must be a number"),
    v.integer("must be a whole number"),
    v.minValue(0, "must be at least 0"),
    v.maxValue(65_535, "must fit in u16"),
  ),
  feePayer: v.optional(Base58Address),
});

export async function buildOracleConfirm(
  config: Config,
  request: v.InferOutput<typeof BuildOracleConfirmRequestSchema>,
): Promise<PartyBuildResponse> {
  if (request.resolutionState !== RESOLUTION_STATE.APPROVED && request.resolutionState !== RESOLUTION_STATE.REJECTED) {
    throw badRequest(
      `resolutionState: must ` +
        `be ${RESOLUTION_STATE.APPROVED} (approved) ` +
        `or ${RESOLUTION_STATE.REJECTED} (rejected), got ${request.resolutionState}`,
    );
  }
  if (request.paymentUid === undefined && request.paymentUidHex === undefined)
    throw badRequest("paymentUid: give paymentUid or paymentUidHex");
  const uid = resolvePaymentUid(request);
  const uidHex = paymentUidToHex(uid.bytes);
  const { context, blockhash } = await loadPayment(config, request.mint, uidHex);
  const { state } = context;
  if (state.oracleAuthority !== request.oracleAuthority) {
    throw badRequest(
      `oracleAuthority: payment ${uidHex} names the oracle ${state.oracleAuthority}, not ${request.oracleAuthority}`,
    );
  }
  if (state.resolutionState !== RESOLUTION_STATE.PENDING) {
    throw badRequest(`payment ${uidHex} already has a verdict (resolution state ${state.resolutionState})`);
  }
  const instruction = getConfirmOracleInstruction({
    ...context,
    oracle: createNoopSigner(request.oracleAuthority),
    deliveryHash: hexBytes(request.deliveryHash),
    resolutionHash: request.resolutionHash ? hexBytes(request.resolutionHash) : new Uint8Array(32),
    reason: request.resolutionReason,
    state: request.resolutionState,
  });
  const verdict = request.resolutionState === RESOLUTION_STATE.APPROVED ? "approves" : "rejects";
  return partyTransaction(context, request.oracleAuthority, request.feePayer, instruction, blockhash, [
    `ConfirmOracle signed by the ` +
      `oracle ${request.oracleAuthority}: ` +
      `it ${verdict} the delivery of payment ${uidHex}; ${feeNote(request.feePayer)}.`,
    "After the verdict the keeper releases (approved) or refunds (rejected) the payment.",
  ]);
}
