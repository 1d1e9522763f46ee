import { describe, expect, it } from "vitest";
import {
  ESCROW_KEEPER_SUBREQUEST_BUDGET,
  maxPaymentsWithinBudget,
  worstCaseSubrequests,
} from "../../../../src/rails/sla-escrow/keeper/budget";
import { PAYMENT_STATE, type Payment, RESOLUTION_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import { decidePayout } from "../../../../src/rails/sla-escrow/program/payout-decision";

/**
 * The keeper's payout rules on the chain clock (the program's own conditions; on-chain runs in
 * test/worker/rails/sla-escrow/keeper).
 */
const EXPIRES = 10_000n;
const COOLDOWN = 3_600n;
const payment = (overrides: Partial<Payment> = {}): Payment =>
  ({
    state: PAYMENT_STATE.FUNDED,
    resolutionState: RESOLUTION_STATE.PENDING,
    deliveryTimestampUnixSeconds: 0n,
    expiresAtUnixSeconds: EXPIRES,
    refundCooldownSeconds: COOLDOWN,
    ...overrides,
  }) as Payment;

describe("decidePayout (protocol §7: only the paths open to any signer)", () => {
  it(
    "undelivered: waits while not expired (now ≤ expires_at), refunds once expired; the buyer's cooldown is not the " +
      "keeper's timer",
    () => {
      expect(decidePayout(payment(), EXPIRES - 1n)).toMatchObject({ kind: "wait", untilUnixSeconds: EXPIRES + 1n });
      expect(decidePayout(payment(), EXPIRES)).toMatchObject({ kind: "wait" });
      expect(decidePayout(payment(), EXPIRES + 1n)).toEqual({ kind: "refund" });
      expect(decidePayout(payment({ refundCooldownSeconds: 0n }), EXPIRES + 1n)).toEqual({ kind: "refund" });
    },
  );

  it("delivered and not rejected: released once expired; approved: at once; rejected: refunded at once", () => {
    expect(decidePayout(payment({ deliveryTimestampUnixSeconds: 5n }), EXPIRES)).toMatchObject({
      kind: "wait",
      untilUnixSeconds: EXPIRES + 1n,
    });
    expect(decidePayout(payment({ deliveryTimestampUnixSeconds: 5n }), EXPIRES + 1n)).toEqual({ kind: "release" });
    expect(decidePayout(payment({ resolutionState: RESOLUTION_STATE.APPROVED }), 0n)).toEqual({ kind: "release" });
    expect(
      decidePayout(payment({ resolutionState: RESOLUTION_STATE.REJECTED, deliveryTimestampUnixSeconds: 5n }), 0n),
    ).toEqual({ kind: "refund" });
    expect(
      decidePayout(payment({ state: PAYMENT_STATE.FUNDED_EXTENDED, resolutionState: RESOLUTION_STATE.APPROVED }), 0n),
    ).toEqual({ kind: "release" });
  });

  it("settled: waits for closed_at, then closes (now > closed_at, as pr402's close keeper)", () => {
    const closedAt = 50_000n;
    for (const state of [PAYMENT_STATE.RELEASED, PAYMENT_STATE.REFUNDED]) {
      expect(decidePayout(payment({ state, closedAtUnixSeconds: closedAt }), closedAt)).toMatchObject({
        kind: "wait",
        untilUnixSeconds: closedAt + 1n,
      });
      expect(decidePayout(payment({ state, closedAtUnixSeconds: closedAt }), closedAt + 1n)).toEqual({ kind: "close" });
    }
  });

  it("missing or disputed payments get no payout", () => {
    expect(decidePayout(null, 0n)).toMatchObject({ kind: "closed" });
    expect(
      decidePayout(payment({ state: 11, resolutionState: RESOLUTION_STATE.APPROVED }), EXPIRES * 2n),
    ).toMatchObject({ kind: "wait", untilUnixSeconds: null });
  });
});

describe("keeper budget", () => {
  it("the largest batch fits the budget and one more would not", () => {
    const n = maxPaymentsWithinBudget();
    expect(n).toBeGreaterThan(100);
    expect(worstCaseSubrequests(n)).toBeLessThanOrEqual(ESCROW_KEEPER_SUBREQUEST_BUDGET);
    expect(worstCaseSubrequests(n + 1)).toBeGreaterThan(ESCROW_KEEPER_SUBREQUEST_BUDGET);
  });
});
