import type { Address } from "@solana/kit";
import * as v from "valibot";
import { isBase58Address } from "../chain/base58";

/**
 * Wire schemas of x402 v2 bodies (docs/facilitator-spec.md §2.1-2.3). Objects stay open to extra keys (clients add
 * their own), but every field this service reads is checked for type and form here.
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

/**
 * A payment amount: raw units of the asset (u64), as a string of digits. The message of a wrong one says what to send
 * instead ("0.25" is a price: in USDC's 6 decimals that is "250000"); it is built only for a value that failed.
 */
export const RawAmountString = v.pipe(
  v.string(rawAmountMessage),
  v.regex(/^\d{1,20}$/, rawAmountMessage),
  v.check((s) => BigInt(s) <= U64_MAX, "must fit in u64"),
);

function rawAmountMessage(issue: v.BaseIssue<unknown>): string {
  const input = issue.input;
  const price = typeof input === "number" ? String(input) : typeof input === "string" ? input.trim() : null;
  const decimal = price === null ? null : /^(\d+)\.(\d{1,6})$/.exec(price);
  const raw = decimal ? BigInt(decimal[1]! + decimal[2]!.padEnd(6, "0")).toString() : null;
  return (
    "must be the amount in the asset's raw units, as a string of digits" +
    (raw === null
      ? ' (e.g. "250000" for 0.25 USDC, which has 6 decimals)'
      : `, not the price "${price}": in a 6-decimal asset such as USDC that is "${raw}"`)
  );
}

/** A mint: its base58 address (a symbol such as "USDC" names no mint on the wire; each network has its own). */
export const MintAddress = v.pipe(
  v.string("must be the mint's base58 address"),
  v.check(
    isBase58Address,
    "must be the mint's base58 address (32 bytes), not a symbol such as \"USDC\": this network's mints are listed in " +
      "GET /agent-payTo-semantics.json (mintAllowlist)",
  ),
  v.transform((s) => s as Address),
);

/** A u64 decimal string as a bigint, or null (for fields whose bad form has a rail's own reason). */
export function parseU64(text: string): bigint | null {
  return /^\d{1,20}$/.test(text) && BigInt(text) <= U64_MAX ? BigInt(text) : null;
}

export const PaymentRequirementsSchema = v.looseObject({
  scheme: v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty")),
  network: v.pipe(
    v.string("must be a string"),
    v.regex(/^[a-z0-9-]+:[A-Za-z0-9]+$/, "must have the form solana:<chain_id>"),
  ),
  asset: MintAddress,
  amount: RawAmountString,
  payTo: Base58Address,
  maxTimeoutSeconds: v.pipe(
    v.number("must be an integer"),
    v.integer("must be an integer"),
    v.minValue(1, "must be at least 1"),
    v.maxValue(MAX_TIMEOUT_SECONDS, `must be at most ${MAX_TIMEOUT_SECONDS}`),
  ),
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

/** The payload of a rail that settles one buyer-signed transaction: the transaction itself, as base64. */
export const TransactionPayloadSchema = v.looseObject({ transaction: Base64Transaction });

/**
 * One shape a payment payload may take, as a rail declares it (rails/rail.ts `RailModule.payload`). Rails may share a
 * shape (the same schema object). `transactionField` names where a shape keeps its buyer-signed transaction when that
 * is not `transaction`: the parsed payload then carries it as `transaction` as well, so the payer rate limit reads
 * every rail's payload alike.
 */
export interface PayloadShape {
  schema: v.GenericSchema<unknown, Record<string, unknown>>;
  /** What the shape is, for the union's error message ("a base64 `transaction`"). */
  describe: string;
  transactionField?: string;
}

/** The shape of a rail that settles one buyer-signed transaction (`{schemes}`: the rails that share it). */
export const TRANSACTION_PAYLOAD_SHAPE: PayloadShape = {
  schema: TransactionPayloadSchema,
  describe: "a base64 `transaction` ({schemes})",
};

/** A payload once parsed: whatever the rail's shape holds, with its transaction under `transaction`. */
export type ParsedPayload = { transaction: string; [key: string]: unknown };

/**
 * The `/verify` and `/settle` body schema over the payload shapes the rails declare, in their order.
 * `describe` of each shape: its words and the schemes that send it, e.g. "a base64 `transaction` (a, b)".
 */
export function verifySettleBodySchema(shapes: readonly { shape: PayloadShape; schemes: readonly string[] }[]) {
  const message =
    "must carry " +
    shapes.map(({ shape, schemes }) => shape.describe.replace("{schemes}", schemes.join(", "))).join(" or ");
  const moved = shapes.flatMap(({ shape }) => (shape.transactionField ? [shape.transactionField] : []));
  const PaymentPayloadSchema = v.looseObject({
    x402Version: v.literal(2, "must be 2"),
    resource: v.optional(ResourceInfoSchema),
    accepted: PaymentRequirementsSchema,
    payload: v.pipe(
      v.union(
        shapes.map(({ shape }) => shape.schema),
        message,
      ),
      // After the union, so a field error inside a rail's own shape is reported as such.
      v.transform((payload): ParsedPayload => {
        if ("transaction" in payload) return payload as ParsedPayload;
        const field = moved.find((key) => key in payload);
        return field ? { ...payload, transaction: payload[field] as string } : (payload as ParsedPayload);
      }),
    ),
    extensions: v.optional(v.record(v.string(), v.unknown())),
  });
  /**
   * `/verify` and `/settle` request body (`X402V2VerifySettleBody`). The top-level `x402Version` may be left out:
   * third-party sellers (`x402-solana`'s X402PaymentHandler, `@faremeter/middleware`) post only
   * `{paymentPayload, paymentRequirements}`, and the payload's own required `x402Version: 2` already says which
   * protocol the body speaks. When given, it must still be 2.
   */
  return v.looseObject({
    x402Version: v.optional(v.literal(2, "must be 2")),
    paymentPayload: PaymentPayloadSchema,
    paymentRequirements: PaymentRequirementsSchema,
    correlationId: v.optional(v.pipe(v.string("must be a string"), v.maxLength(128, "must be at most 128 characters"))),
  });
}
export type VerifySettleBody = v.InferOutput<ReturnType<typeof verifySettleBodySchema>>;
export type PaymentPayload = VerifySettleBody["paymentPayload"];

/**
 * A 402 body (docs/facilitator-spec.md §2.2): enrich input and output. `accepts` lines are validated individually by
 * the enricher.
 */
export const PaymentRequiredSchema = v.looseObject({
  x402Version: v.literal(2, "must be 2"),
  resource: ResourceInfoSchema,
  accepts: v.pipe(
    v.array(v.unknown(), "must be an array"),
    v.minLength(1, "must list at least one payment requirement"),
    v.maxLength(32, "lists too many payment requirements (max 32)"),
  ),
  error: v.optional(v.string()),
  description: v.optional(v.string()),
});
export type PaymentRequiredBody = v.InferOutput<typeof PaymentRequiredSchema>;
