import * as v from "valibot";
import { Address, DecimalAmount } from "../responses/fields";

/** Success bodies of `/verify` and `/settle` (routes/payments.ts). */

export const VerifyResponseSchema = v.looseObject({
  isValid: v.boolean(),
  valid: v.boolean(),
  payer: v.optional(Address),
  invalidReason: v.optional(v.string()),
  correlationId: v.string(),
});

export const SettleResponseSchema = v.looseObject({
  success: v.boolean(),
  payer: v.optional(Address),
  transaction: v.string(),
  network: v.string(),
  alreadySettled: v.optional(v.boolean()),
  /**
   * The amount settled in atomic units, from a rail whose settled amount the line does not fix
   * (`RailModule.settledAmount`), as the official facilitator answers.
   */
  amount: v.optional(DecimalAmount),
  errorReason: v.optional(v.string()),
  correlationId: v.string(),
});
