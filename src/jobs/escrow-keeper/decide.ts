import { PAYMENT_STATE, RESOLUTION_STATE, type Payment } from "../../programs/sla-escrow/accounts";

/**
 * What the keeper does with one escrow payment, by the program's own payout rules (ABI: ReleasePayment and
 * RefundPayment are keeper instructions; the stand-in program documents the conditions):
 * - release once the delivery is approved (buyer or oracle), or once a submitted, unrejected delivery reaches expiry;
 * - refund once the delivery is rejected, or once expiry plus the refund cooldown passed with no delivery;
 * - a disputed payment waits for the adjudicator's split, which settles it itself.
 * Time is the chain's clock, never the Worker's.
 */
export type KeeperDecision =
  | { kind: "release" }
  | { kind: "refund" }
  | { kind: "closed"; why: string }
  | { kind: "wait"; untilUnixSeconds: bigint | null; why: string };

export function decidePayout(payment: Payment | null, nowUnixSeconds: bigint): KeeperDecision {
  if (payment === null) return { kind: "closed", why: "no payment account (never funded, or closed)" };
  if (payment.state === PAYMENT_STATE.RELEASED) return { kind: "closed", why: "released" };
  if (payment.state === PAYMENT_STATE.REFUNDED) return { kind: "closed", why: "refunded" };
  if (payment.state !== PAYMENT_STATE.FUNDED && payment.state !== PAYMENT_STATE.FUNDED_EXTENDED) {
    return { kind: "wait", untilUnixSeconds: null, why: `state ${payment.state} (disputed or unknown): the adjudicator settles it` };
  }
  if (payment.resolutionState === RESOLUTION_STATE.REJECTED) return { kind: "refund" };
  if (payment.resolutionState === RESOLUTION_STATE.APPROVED) return { kind: "release" };
  if (payment.deliveryTimestampUnixSeconds !== 0n) {
    return nowUnixSeconds >= payment.expiresAtUnixSeconds
      ? { kind: "release" }
      : { kind: "wait", untilUnixSeconds: payment.expiresAtUnixSeconds, why: "delivered; the verdict window runs until expiry" };
  }
  const refundAt = payment.expiresAtUnixSeconds + payment.refundCooldownSeconds;
  return nowUnixSeconds >= refundAt ? { kind: "refund" } : { kind: "wait", untilUnixSeconds: refundAt, why: "no delivery yet; refundable after expiry plus cooldown" };
}
