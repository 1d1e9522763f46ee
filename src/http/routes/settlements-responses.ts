import * as v from "valibot";
import { Address, DecimalAmount } from "../responses/fields";

/** Success body of `GET /settlements/{signature}` (routes/settlements.ts). */

export const SettlementStatusResponseSchema = v.looseObject({
  signature: v.string(),
  state: v.picklist(["pending", "confirmed", "failed"]),
  scheme: v.string(),
  network: v.string(),
  payer: v.nullable(Address),
  payTo: Address,
  asset: Address,
  amount: DecimalAmount,
  settledAt: v.nullable(v.string()),
  /** The x402 payment-identifier id the payment carried, when it carried one. */
  paymentId: v.optional(v.string()),
});
