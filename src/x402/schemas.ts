import * as v from "valibot";
import type { Address } from "@solana/kit";
import { isBase58Address } from "../chain/base58";

/**
 * Wire schemas of x402 v2 bodies (docs/facilitator-spec.md §2.1-2.3). Objects stay open to extra keys (clients add their own),
 * but every field this service reads is checked for type and form here.
 */

export const U64_MAX = 0xffff_ffff_ffff_ffffn;
/** Largest `maxTimeoutSeconds` accepted (i32 max, 68 years): `* 1000` and the D1 integer column stay exact. */
export const MAX_TIMEOUT_SECONDS = 2_147_483_647;

export const Base58Address = v.pipe(
  v.string("must be a base58 address string"),
  v.check(isBase58Address, "must be a base58 Solana address (32 bytes)"),
  v.transform((s) => s as Address),
);

/** Decimal digits within u64, carried as a string on the wire, as a bigint inside. */
export const U64String = v.pipe(
  v.string("must be a string of decimal digits"),
  v.regex(/^\d{1,20}$/, "must be a string of decimal digits"),
  v.check((s) => BigInt(s) <= U64_MAX, "must fit in u64"),
);

/** A u64 decimal string as a bigint, or null (for fields whose bad form has a rail's own reason). */
export function parseU64(text: string): bigint | null {
  return /^\d{1,20}$/.test(text) && BigInt(text) <= U64_MAX ? BigInt(text) : null;
}

export const PaymentRequirementsSchema = v.looseObject({
  scheme: v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty")),
  network: v.pipe(v.string("must be a string"), v.regex(/^[a-z0-9-]+:[A-Za-z0-9]+$/, "must have the form solana:<chain_id>")),
  asset: Base58Address,
  amount: U64String,
  payTo: Base58Address,
  maxTimeoutSeconds: v.pipe(v.number("must be an integer"), v.integer("must be an integer"), v.minValue(1, "must be at least 1"), v.maxValue(MAX_TIMEOUT_SECONDS, `must be at most ${MAX_TIMEOUT_SECONDS}`)),
  extra: v.optional(v.record(v.string(), v.unknown(), "must be an object"), {}),
});
export type PaymentRequirements = v.InferOutput<typeof PaymentRequirementsSchema>;

export const ResourceInfoSchema = v.looseObject({
  url: v.string("must be a string"),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
});

/** A signed wire transaction as base64 (at most the 1232-byte packet limit, with room for padding). */
export const Base64Transaction = v.pipe(
  v.string("must be a base64 string"),
  v.minLength(1, "must not be empty"),
  v.maxLength(2048, "is longer than any Solana transaction"),
  v.regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be base64"),
);

/** exact and sla-escrow: the payload is the buyer-signed transaction. */
const TransactionPayloadSchema = v.looseObject({ transaction: Base64Transaction });

const UnixSeconds = v.pipe(v.number("must be an integer (unix seconds)"), v.safeInteger("must be an integer (unix seconds)"), v.minValue(0, "must not be negative"));

/** payload.openSlot and payload.nonce: a string (its u64 form is the rail's to check, with the official reason). */
const ChannelSeedString = v.pipe(v.string("must be a string of decimal digits"), v.maxLength(40, "must be a string of decimal digits"));

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
    voucherSignature: v.optional(v.pipe(v.string("must be a base58 string"), v.regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/, "must be a base58 Ed25519 signature"))),
    type: v.optional(v.picklist(["deposit", "claim"], 'must be "deposit" or "claim"')),
});
export type UptoPayload = v.InferOutput<typeof UptoPayloadSchema> & { transaction: string };

/**
 * The payload as an upto payload, validated anew (a payload that matched the transaction shape may carry any other
 * keys unchecked), or null.
 */
export function parseUptoPayload(payload: PaymentPayload["payload"]): UptoPayload | null {
  const parsed = v.safeParse(UptoPayloadSchema, payload);
  return parsed.success ? { ...parsed.output, transaction: parsed.output.openTransaction } : null;
}

export const PaymentPayloadSchema = v.looseObject({
  x402Version: v.literal(2, "must be 2"),
  resource: v.optional(ResourceInfoSchema),
  accepted: PaymentRequirementsSchema,
  payload: v.pipe(
    v.union([TransactionPayloadSchema, UptoPayloadSchema], "must carry a base64 `transaction` (exact, sla-escrow) or an upto channel open (`openTransaction` and its fields)"),
    // After the union, so a field error inside an upto payload is reported as such.
    v.transform((payload): { transaction: string; [key: string]: unknown } =>
      "openTransaction" in payload && !("transaction" in payload) ? { ...payload, transaction: payload.openTransaction as string } : (payload as { transaction: string }),
    ),
  ),
  extensions: v.optional(v.record(v.string(), v.unknown())),
});
export type PaymentPayload = v.InferOutput<typeof PaymentPayloadSchema>;

/**
 * `/verify` and `/settle` request body (`X402V2VerifySettleBody`). The top-level `x402Version` may be left out:
 * third-party sellers (`x402-solana`'s X402PaymentHandler, `@faremeter/middleware`) post only
 * `{paymentPayload, paymentRequirements}`, and the payload's own required `x402Version: 2` already says which
 * protocol the body speaks. When given, it must still be 2.
 */
export const VerifySettleBodySchema = v.looseObject({
  x402Version: v.optional(v.literal(2, "must be 2")),
  paymentPayload: PaymentPayloadSchema,
  paymentRequirements: PaymentRequirementsSchema,
  correlationId: v.optional(v.pipe(v.string("must be a string"), v.maxLength(128, "must be at most 128 characters"))),
});
export type VerifySettleBody = v.InferOutput<typeof VerifySettleBodySchema>;

/** A 402 body (docs/facilitator-spec.md §2.2): enrich input and output. `accepts` lines are validated individually by the enricher. */
export const PaymentRequiredSchema = v.looseObject({
  x402Version: v.literal(2, "must be 2"),
  resource: ResourceInfoSchema,
  accepts: v.pipe(v.array(v.unknown(), "must be an array"), v.minLength(1, "must list at least one payment requirement"), v.maxLength(32, "lists too many payment requirements (max 32)")),
  error: v.optional(v.string()),
  description: v.optional(v.string()),
});
