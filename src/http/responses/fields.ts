import * as v from "valibot";
import { PaymentRequirementsSchema } from "../../x402/schemas";

/**
 * What the success bodies of the agent-facing routes share. Each route's own response schemas sit beside it
 * (`http/routes/<feature>-responses.ts`, `rails/<scheme>/routes/responses.ts`) and are documented in /openapi.json and
 * /agent-tools.json. Loose objects: the listed members are promised, more may be added. A worker test parses live
 * responses with them, so a route that drifts from its documented shape fails the build.
 */
export const Address = v.string();
export const DecimalAmount = v.pipe(v.string(), v.regex(/^\d+$/));
export const Integer = v.pipe(v.number(), v.integer());
/** RFC 3339 instant (pr402 documents these as `format: date-time`). */
export const Instant = v.string();

/**
 * What every payment builder answers: UnsignedTransactionFields (src/chain/unsigned-transaction.ts) and the verify body
 * template.
 */
export const UNSIGNED_TRANSACTION_ENTRIES = {
  x402Version: v.literal(2),
  transaction: v.string(),
  verifyBodyTemplate: v.looseObject({
    x402Version: v.literal(2),
    paymentPayload: v.looseObject({
      x402Version: v.literal(2),
      accepted: PaymentRequirementsSchema,
      payload: v.looseObject({ transaction: v.string() }),
    }),
    paymentRequirements: PaymentRequirementsSchema,
  }),
  payerSignatureIndex: Integer,
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: Integer,
  feePayer: Address,
  payer: Address,
  signerPubkeys: v.array(Address),
};
