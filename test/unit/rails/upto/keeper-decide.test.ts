import { describe, expect, it } from "vitest";
import {
  maxChannelsWithinBudget,
  UPTO_KEEPER_SUBREQUEST_BUDGET,
  worstCaseSubrequests,
} from "../../../../src/rails/upto/keeper/budget";
import { decideChannelStep, OPEN_SLOT_WINDOW } from "../../../../src/rails/upto/keeper/decide";
import { CHANNEL_STATUS, type Channel } from "../../../../src/rails/upto/program/accounts";

/**
 * The upto keeper's steps on the chain clock (the program's own conditions; on-chain runs in
 * test/worker/rails/upto/keeper).
 */
const CLAIMABLE_UNTIL = 10_000n;
const OPEN_SLOT = 500n;
const channel = (overrides: Partial<Channel> = {}): Channel =>
  ({
    status: CHANNEL_STATUS.OPEN,
    closureStartedAt: 0n,
    gracePeriod: 900,
    openSlot: OPEN_SLOT,
    ...overrides,
  }) as Channel;
const at = (unixSeconds: bigint, slot = OPEN_SLOT + 1n) => ({ unixSeconds, slot });

describe("decideChannelStep", () => {
  it("OPEN: waits while a voucher may still settle it, then seals at the watermark and distributes", () => {
    expect(decideChannelStep(channel(), at(CLAIMABLE_UNTIL - 1n), CLAIMABLE_UNTIL)).toMatchObject({
      kind: "wait",
      untilUnixSeconds: CLAIMABLE_UNTIL,
    });
    expect(decideChannelStep(channel(), at(CLAIMABLE_UNTIL), CLAIMABLE_UNTIL)).toEqual({ kind: "seal_and_distribute" });
  });

  it(
    "CLOSING: the payee's seal before the grace period ends (not while a claim may land), anyone's Seal after " + "it",
    () => {
      const closing = channel({ status: CHANNEL_STATUS.CLOSING, closureStartedAt: 9_000n, gracePeriod: 2_000 });
      expect(decideChannelStep(closing, at(9_500n), CLAIMABLE_UNTIL)).toMatchObject({
        kind: "wait",
        untilUnixSeconds: CLAIMABLE_UNTIL,
      });
      expect(decideChannelStep(closing, at(10_500n), CLAIMABLE_UNTIL)).toEqual({ kind: "seal_and_distribute" });
      expect(decideChannelStep(closing, at(11_000n), CLAIMABLE_UNTIL)).toEqual({ kind: "seal_expired_and_distribute" });
      const shortGrace = channel({ status: CHANNEL_STATUS.CLOSING, closureStartedAt: 9_000n, gracePeriod: 1 });
      expect(decideChannelStep(shortGrace, at(9_001n), CLAIMABLE_UNTIL)).toEqual({
        kind: "seal_expired_and_distribute",
      });
    },
  );

  it("SEALED: distribute; DISTRIBUTED: reclaim only after the open-slot window; gone: closed", () => {
    expect(decideChannelStep(channel({ status: CHANNEL_STATUS.SEALED }), at(0n), CLAIMABLE_UNTIL)).toEqual({
      kind: "distribute",
    });
    const distributed = channel({ status: CHANNEL_STATUS.DISTRIBUTED });
    expect(decideChannelStep(distributed, at(0n, OPEN_SLOT + OPEN_SLOT_WINDOW), CLAIMABLE_UNTIL)).toMatchObject({
      kind: "wait",
      untilSlot: OPEN_SLOT + OPEN_SLOT_WINDOW + 1n,
    });
    expect(decideChannelStep(distributed, at(0n, OPEN_SLOT + OPEN_SLOT_WINDOW + 1n), CLAIMABLE_UNTIL)).toEqual({
      kind: "reclaim",
    });
    expect(decideChannelStep(null, at(0n), CLAIMABLE_UNTIL)).toMatchObject({ kind: "closed" });
  });
});

describe("upto keeper budget", () => {
  it("a run's worst case fits its subrequest budget, and one more channel would not", () => {
    const n = maxChannelsWithinBudget();
    expect(n).toBeGreaterThan(50);
    expect(worstCaseSubrequests(n)).toBeLessThanOrEqual(UPTO_KEEPER_SUBREQUEST_BUDGET);
    expect(worstCaseSubrequests(n + 1)).toBeGreaterThan(UPTO_KEEPER_SUBREQUEST_BUDGET);
  });
});
