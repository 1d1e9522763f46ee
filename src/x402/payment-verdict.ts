import type { RejectionReason } from "./rejection-reasons";
import type { PaymentRequirements } from "./schemas";
import type { SchemeName } from "./scheme-names";

export type { RejectionReason } from "./rejection-reasons";

/**
 * Why a payment was refused, the one shape every rule, rail and the settle engine uses: a reason from the closed list
 * and a sentence a person understands.
 */
export interface Refusal {
  reason: RejectionReason;
  message: string;
}

/** A refusal as verify and settle answer it: with the payer when known and the wire error code. */
export interface PaymentRejection extends Refusal {
  ok: false;
  payer?: string;
  /** Wire error code; PAYMENT_INVALID unless the failure has its own (BLOCKHASH_EXPIRED, FACILITATOR_UPSTREAM …). */
  code?:
    | "PAYMENT_INVALID"
    | "BLOCKHASH_EXPIRED"
    | "FACILITATOR_UPSTREAM"
    | "SERVICE_UNAVAILABLE"
    | "CONFLICT"
    | "RATE_LIMITED";
}

/**
 * The reason's literal type is kept (`PaymentRejection & { reason: R }`), so a caller can say which reasons it returns.
 */
export function rejection<R extends RejectionReason>(
  reason: R,
  message: string,
  extra: Partial<Omit<PaymentRejection, "ok" | "reason" | "message">> = {},
): PaymentRejection & { reason: R } {
  return { ok: false, reason, message, ...extra };
}

/**
 * The payment's blockhash expired before it landed: the one refusal that tells the client to build and sign again
 * ("retry build", code BLOCKHASH_EXPIRED). `when` words it for the chain refusing the transaction (simulation,
 * preflight) or for a settle that gave up on a payment that was never confirmed.
 */
export function blockhashExpired(when: "refused" | "never_confirmed"): PaymentRejection {
  const what =
    when === "refused"
      ? "The transaction's blockhash has expired"
      : "The payment was never confirmed and its blockhash has expired";
  return rejection("blockhash_expired", `${what}; retry build: rebuild and sign the payment again`, {
    code: "BLOCKHASH_EXPIRED",
  });
}

/** Requirements that passed the scheme-independent checks, with the scheme in wire form. */
export interface AcceptedRequirements {
  scheme: SchemeName;
  requirements: PaymentRequirements;
  amount: bigint;
}

/**
 * A buyer paying a seller it is (the seller's own wallet pays itself: payTo's owner, or a vault's): refused on every
 * rail. It moves nothing anyone is owed, and every such payment would only cost the fee payer its fee.
 */
export function selfPaymentRefusal(payer: string, seller: string): PaymentRejection | null {
  if (payer !== seller) return null;
  return rejection(
    "self_payment",
    `The ` +
      `buyer ${payer} is the seller this payment pays (payTo's owner): a wallet paying itself settles nothing, so ` +
      `this facilitator does not co-sign it`,
    { payer },
  );
}
