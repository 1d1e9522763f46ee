import * as v from "valibot";
import { Address, DecimalAmount, Integer, UNSIGNED_TRANSACTION_ENTRIES } from "../../../http/responses/fields";
import { PaymentRequirementsSchema } from "../../../x402/schemas";

/** Success body of the upto rail's deposit builder. */

/**
 * The upto deposit builder: the same unsigned-transaction fields, but the payload is the official client's
 * UptoSvmPayload.
 */
export const UptoDepositBuildResponseSchema = v.looseObject({
  ...UNSIGNED_TRANSACTION_ENTRIES,
  verifyBodyTemplate: v.looseObject({
    x402Version: v.literal(2),
    paymentPayload: v.looseObject({
      x402Version: v.literal(2),
      accepted: PaymentRequirementsSchema,
      payload: v.looseObject({
        channelId: Address,
        deposit: DecimalAmount,
        expiresAt: Integer,
        from: Address,
        maxAmount: DecimalAmount,
        nonce: DecimalAmount,
        openSlot: DecimalAmount,
        openTransaction: v.string(),
        authorizedSigner: Address,
        validAfter: Integer,
      }),
    }),
    paymentRequirements: PaymentRequirementsSchema,
  }),
  channelId: Address,
  escrowTokenAccount: Address,
  deposit: DecimalAmount,
  gracePeriodSeconds: Integer,
  openSlot: DecimalAmount,
  programId: Address,
  notes: v.array(v.string()),
});
