import * as v from "valibot";
import { Address, Integer, UNSIGNED_TRANSACTION_ENTRIES } from "../../../http/responses/fields";

/** Success bodies of the sla-escrow rail's routes: the builders and the keeper pass. */

export const EscrowBuildResponseSchema = v.looseObject({
  ...UNSIGNED_TRANSACTION_ENTRIES,
  slaFundTxNetworkFeePayer: v.picklist(["buyer", "facilitator"]),
  payTo: Address,
  paymentUid: v.optional(v.string()),
  paymentUidHex: v.string(),
  paymentPda: Address,
  programId: Address,
  notes: v.array(v.string()),
});

/** pr402's BuildSlaEscrowV2TxResponse and BuildSubmitDeliveryTxResponse, and our party-builder fields. */
export const PartyBuildResponseSchema = v.looseObject({
  x402Version: v.literal(2),
  transaction: v.string(),
  payerSignatureIndex: Integer,
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: Integer,
  feePayer: Address,
  payer: Address,
  signerPubkeys: v.array(Address),
  programId: Address,
  paymentPda: Address,
  paymentExtPda: Address,
  paymentUidHex: v.string(),
  notes: v.array(v.string()),
});

/** pr402's BuildFundPaymentV2TxResponse. */
export const EscrowV2BuildResponseSchema = v.looseObject({
  ...PartyBuildResponseSchema.entries,
  payTo: Address,
  paymentUid: v.string(),
});

/** pr402's BuildSlaEscrowSettleTxResponse (all optional there) with our unsigned-transaction fields. */
export const EscrowSettleBuildResponseSchema = v.looseObject({
  x402Version: v.literal(2),
  action: v.picklist(["release_payment", "refund_payment"]),
  unsignedTransaction: v.string(),
  transaction: v.string(),
  paymentUidHex: v.string(),
  paymentPda: Address,
  programId: Address,
  feePayer: Address,
  payerSignatureIndex: Integer,
  signerPubkeys: v.array(Address),
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: Integer,
  notes: v.array(v.string()),
});

/** pr402's SlaEscrowSettleResponse / SlaEscrowCloseResponse counters next to the keeper's report. */
export const KeeperPassResponseSchema = v.looseObject({
  considered: Integer,
  succeeded: Integer,
  skipped: Integer,
  failed: Integer,
  items: v.array(v.looseObject({})),
  dryRun: v.boolean(),
  released: Integer,
  refunded: Integer,
  ignored: v.array(v.string()),
});
