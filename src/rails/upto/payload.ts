import * as v from "valibot";
import { Base58Address, Base64Transaction, type ParsedPayload, type PayloadShape, U64String } from "../../x402/schemas";

const UnixSeconds = v.pipe(
  v.number("must be an integer (unix seconds)"),
  v.safeInteger("must be an integer (unix seconds)"),
  v.minValue(0, "must not be negative"),
);

/** payload.openSlot and payload.nonce: a string (its u64 form is the rail's to check, with the official reason). */
const ChannelSeedString = v.pipe(
  v.string("must be a string of decimal digits"),
  v.maxLength(40, "must be a string of decimal digits"),
);

/**
 * The `upto` payload of the official @x402/svm client (`UptoSvmScheme.createPaymentPayload`; the official facilitator
 * checks the same fields in `isUptoSvmPayload`): a buyer-signed payment-channel open whose deposit is the ceiling, plus
 * what the seller's server adds when it settles — `type` ("deposit" before its handler, "claim" after it) and, when the
 * seller signs its own vouchers, `voucherSignature` (base58 Ed25519 over the voucher of the charged amount).
 * `transaction` is set to the open transaction, so the payer rate limit reads every rail's payload alike.
 */
export const UptoPayloadSchema = v.looseObject({
  from: Base58Address,
  maxAmount: U64String,
  deposit: U64String,
  channelId: Base58Address,
  authorizedSigner: Base58Address,
  openTransaction: Base64Transaction,
  // The channel's seeds: strings here, their u64 form checked by the rail (`invalid_upto_svm_payload_channel_seed`).
  openSlot: ChannelSeedString,
  expiresAt: UnixSeconds,
  validAfter: UnixSeconds,
  nonce: ChannelSeedString,
  voucherSignature: v.optional(
    v.pipe(
      v.string("must be a base58 string"),
      v.regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/, "must be a base58 Ed25519 signature"),
    ),
  ),
  type: v.optional(v.picklist(["deposit", "claim"], 'must be "deposit" or "claim"')),
});
export type UptoPayload = v.InferOutput<typeof UptoPayloadSchema> & { transaction: string };

/** The rail's payload shape for the `/verify` and `/settle` body. */
export const UPTO_PAYLOAD_SHAPE: PayloadShape = {
  schema: UptoPayloadSchema,
  describe: "an upto channel open (`openTransaction` and its fields)",
  transactionField: "openTransaction",
};

/**
 * The payload as an upto payload, validated anew (a payload that matched the transaction shape may carry any other
 * keys unchecked), or null.
 */
export function parseUptoPayload(payload: ParsedPayload): UptoPayload | null {
  const parsed = v.safeParse(UptoPayloadSchema, payload);
  return parsed.success ? { ...parsed.output, transaction: parsed.output.openTransaction } : null;
}
