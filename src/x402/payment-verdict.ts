import type { PaymentRequirements } from "./schemas";
import type { SchemeName } from "./scheme-names";

/** Why a payment was refused: a snake_case x402 reason and a sentence a person understands. */
export interface PaymentRejection {
  ok: false;
  reason: string;
  message: string;
  payer?: string;
  /** Wire error code; PAYMENT_INVALID unless the failure has its own (BLOCKHASH_EXPIRED, FACILITATOR_UPSTREAM …). */
  code?: "PAYMENT_INVALID" | "BLOCKHASH_EXPIRED" | "FACILITATOR_UPSTREAM" | "SERVICE_UNAVAILABLE" | "CONFLICT";
}

export function rejection(reason: string, message: string, extra: Partial<Omit<PaymentRejection, "ok" | "reason" | "message">> = {}): PaymentRejection {
  return { ok: false, reason, message, ...extra };
}

/** Requirements that passed the scheme-independent checks, with the scheme in wire form. */
export interface AcceptedRequirements {
  scheme: SchemeName;
  requirements: PaymentRequirements;
  amount: bigint;
}
