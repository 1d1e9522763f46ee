import { PAYMENT_STATE, type Payment, RESOLUTION_STATE } from "./accounts";

/**
 * The payout the program lets any signer make on one escrow payment right now: what the escrow keeper does, and what
 * `/build-sla-escrow-settle-tx` builds. It only takes the paths the protocol opens to any signer
 * (docs/sla-escrow-abi.md, protocol §7, and its "Who may settle, and when"):
 * - release post-approval (resolution_state = 1), or once expired with a delivery nobody rejected;
 * - refund post-rejection (resolution_state = 2), or once expired with no delivery;
 * - close a settled payment after its closed_at (the rent goes back to the buyer).
 * "Expired" is now > expires_at. The refund cooldown is NOT a keeper timer: it gates the buyer's own cancellation
 * before any outcome, a path a third party may not take. A disputed payment waits for the adjudicator's split.
 * Time is the chain's clock, never the Worker's.
 */
export type KeeperDecision =
  | { kind: "release" }
  | { kind: "refund" }
  | { kind: "close" }
  | { kind: "closed"; why: string }
  | { kind: "wait"; untilUnixSeconds: bigint | null; why: string };

export function decidePayout(payment: Payment | null, nowUnixSeconds: bigint): KeeperDecision {
  if (payment === null) return { kind: "closed", why: "no payment account (never funded, or closed)" };
  if (payment.state === PAYMENT_STATE.RELEASED || payment.state === PAYMENT_STATE.REFUNDED) {
    const settled = payment.state === PAYMENT_STATE.RELEASED ? "released" : "refunded";
    // pr402 closes only once now > closed_at; so do we (the protocol table reads now ≥ closed_at).
    return nowUnixSeconds > payment.closedAtUnixSeconds
      ? { kind: "close" }
      : {
          kind: "wait",
          untilUnixSeconds: payment.closedAtUnixSeconds + 1n,
          why: `${settled}; its rent goes back to the buyer after closed_at`,
        };
  }
  if (payment.state !== PAYMENT_STATE.FUNDED && payment.state !== PAYMENT_STATE.FUNDED_EXTENDED) {
    return {
      kind: "wait",
      untilUnixSeconds: null,
      why: `state ${payment.state} (disputed or unknown): the adjudicator settles it`,
    };
  }
  if (payment.resolutionState === RESOLUTION_STATE.REJECTED) return { kind: "refund" };
  if (payment.resolutionState === RESOLUTION_STATE.APPROVED) return { kind: "release" };
  const expired = nowUnixSeconds > payment.expiresAtUnixSeconds;
  const delivered = payment.deliveryTimestampUnixSeconds !== 0n;
  if (expired) return delivered ? { kind: "release" } : { kind: "refund" };
  return {
    kind: "wait",
    untilUnixSeconds: payment.expiresAtUnixSeconds + 1n,
    why: delivered
      ? "delivered; the oracle may rule until expiry"
      : "no delivery yet; anyone may refund it once expired (before that, only the buyer after its cooldown, the " +
        "seller or the admin)",
  };
}
