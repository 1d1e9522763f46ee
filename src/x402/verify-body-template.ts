import type { PaymentRequirements } from "./schemas";

/**
 * The verify/settle body a builder returns around its unsigned transaction (docs/facilitator-spec.md §2.4): the buyer
 * only signs and sends it.
 */
export interface VerifyBodyTemplate {
  x402Version: 2;
  paymentPayload: {
    x402Version: 2;
    resource?: unknown;
    accepted: PaymentRequirements;
    payload: { transaction: string };
  };
  paymentRequirements: PaymentRequirements;
}

/**
 * The line as given, with the scheme in its wire form (docs/facilitator-spec.md §2.4, §9), on both sides of the body.
 */
export function verifyBodyTemplate(
  accepted: PaymentRequirements,
  wireScheme: string,
  transaction: string,
  resource?: unknown,
): VerifyBodyTemplate {
  const wireAccepted: PaymentRequirements = { ...accepted, scheme: wireScheme };
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      ...(resource ? { resource } : {}),
      accepted: wireAccepted,
      payload: { transaction },
    },
    paymentRequirements: wireAccepted,
  };
}
