import { describe, expect, it } from "vitest";
import {
  maxRailsWithinBudget,
  SWEEP_JOB_SUBREQUEST_BUDGET,
  worstCaseSubrequests,
} from "../../../../../src/rails/exact/sweep/budget";
import { planSweep, type RailBalance, thresholdFor } from "../../../../../src/rails/exact/sweep/plan";
import {
  RENT_EXEMPT_MINIMUM_EMPTY_LAMPORTS,
  spendableLamports,
} from "../../../../../src/rails/exact/sweep/vault-balances";

const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const OTHER_MINT = "So11111111111111111111111111111111111111112";
const thresholds = {
  minSpendableLamports: 30_000_000n,
  minSplRawDefault: 100_000n,
  minSplRawByMint: { [OTHER_MINT]: 7n },
};
const rail = (over: Partial<RailBalance>): RailBalance => ({
  wallet: "w",
  rail: USDC,
  availableRaw: 0n,
  minFeeRaw: 10_000n,
  problem: null,
  ...over,
});

describe("sweep plan (pure)", () => {
  it("maps every rail to one of the wire's (status, action) pairs", () => {
    const items = planSweep(
      [
        rail({ wallet: "a", availableRaw: 100_000n }),
        rail({ wallet: "b", availableRaw: 99_999n }),
        rail({ wallet: "c", rail: "SOL", availableRaw: 30_000_000n, minFeeRaw: 100_000n }),
        rail({ wallet: "d", rail: "SOL", availableRaw: 29_999_999n }),
        rail({ wallet: "e", availableRaw: null, problem: "vault X does not exist" }),
      ],
      thresholds,
    );
    expect(items.map((i) => [i.wallet, i.status, i.action])).toEqual([
      ["a", "eligible", "dry_run"],
      ["b", "skipped", "below_threshold"],
      ["c", "eligible", "dry_run"],
      ["d", "skipped", "below_threshold"],
      ["e", "failed", "none"],
    ]);
    expect(items[0]).toMatchObject({
      settlementMode: "spl",
      splMint: USDC,
      availableRaw: "100000",
      thresholdRaw: "100000",
      signature: null,
      error: null,
    });
    expect(items[2]).toMatchObject({ settlementMode: "native_sol", splMint: null, thresholdRaw: "30000000" });
    expect(items[4]).toMatchObject({ availableRaw: null, error: "vault X does not exist" });
  });

  it("uses the per-mint threshold, but never one below the program's minimum fee (such a sweep fails on chain)", () => {
    expect(thresholdFor(OTHER_MINT, 0n, thresholds)).toBe(7n);
    expect(thresholdFor(OTHER_MINT, 10_000n, thresholds)).toBe(10_000n);
    // an empty vault is never eligible
    expect(thresholdFor(USDC, 0n, { ...thresholds, minSplRawDefault: 0n })).toBe(1n);
    expect(planSweep([rail({ rail: OTHER_MINT, availableRaw: 9_999n })], thresholds)[0]!.status).toBe("skipped");
  });

  it("spendable SOL is the storage balance above the rent-exempt minimum of a 0-byte account", () => {
    expect(RENT_EXEMPT_MINIMUM_EMPTY_LAMPORTS).toBe(890_880n);
    expect(spendableLamports(890_880n)).toBe(0n);
    expect(spendableLamports(100n)).toBe(0n);
    expect(spendableLamports(1_890_880n)).toBe(1_000_000n);
  });
});

describe("sweep subrequest budget", () => {
  it("caps the rails per run so that the worst case never exceeds the job's budget", () => {
    const rails = maxRailsWithinBudget();
    expect(worstCaseSubrequests(rails)).toBeLessThanOrEqual(SWEEP_JOB_SUBREQUEST_BUDGET);
    expect(worstCaseSubrequests(rails + 1)).toBeGreaterThan(SWEEP_JOB_SUBREQUEST_BUDGET);
    expect(rails).toBeGreaterThanOrEqual(50); // the spec's default batch limit fits in one run
  });

  it(
    "counts the worst case as documented (8 D1 with the exposure budget's bookings and trims + 2 read rounds + fee " +
      "payer balance + blockhash + sends + status polls)",
    () => {
      expect(worstCaseSubrequests(0)).toBe(1);
      // 50 rails: 8 + ceil(101/100) + ceil(150/100) + 1 + 1 + 50 + 8 × 1 = 8 + 2 + 2 + 2 + 50 + 8
      expect(worstCaseSubrequests(50)).toBe(72);
      expect(maxRailsWithinBudget(25)).toBe(5); // 8 + 1 + 1 + 2 + 5 + 8 = 25
      // Workers Free (50 subrequests in all): a budget of 25 still sweeps a few rails per run.
      expect(worstCaseSubrequests(maxRailsWithinBudget(25))).toBeLessThanOrEqual(25);
    },
  );

  it("a fleet of 10,000 rails is covered over several runs, none above the budget", () => {
    const perRun = maxRailsWithinBudget();
    const runs = Math.ceil(10_000 / perRun);
    expect(runs * perRun).toBeGreaterThanOrEqual(10_000);
    expect(worstCaseSubrequests(perRun)).toBeLessThanOrEqual(SWEEP_JOB_SUBREQUEST_BUDGET);
  });
});
