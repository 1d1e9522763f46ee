/**
 * `npm run bench:sweep-plan`: plans 10,000 candidate rails (the pure step of a sweep run: balances + thresholds →
 * items with status/action) and prints timing. Inputs are synthetic: a mix of SOL and SPL rails, some unreadable,
 * some below and some above the thresholds, with per-mint overrides. Not a test: numbers on a shared machine are noisy.
 */
import { performance } from "node:perf_hooks";
import {
  maxRailsWithinBudget,
  SWEEP_JOB_SUBREQUEST_BUDGET,
  worstCaseSubrequests,
} from "../src/rails/exact/sweep/budget";
import { planSweep, type RailBalance } from "../src/rails/exact/sweep/plan";

const RAILS = 10_000;
const ROUNDS = 20;
const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const OTHER = "So11111111111111111111111111111111111111112";

function syntheticRails(count: number): RailBalance[] {
  return Array.from({ length: count }, (_, i) => {
    const rail = i % 3 === 0 ? "SOL" : i % 3 === 1 ? USDC : OTHER;
    const unreadable = i % 17 === 0;
    return {
      wallet: `wallet-${i}`,
      rail,
      availableRaw: unreadable ? null : BigInt((i * 7_919) % 60_000_000),
      minFeeRaw: rail === "SOL" ? 100_000n : 10_000n,
      problem: unreadable ? "vault does not exist" : null,
    };
  });
}

const rails = syntheticRails(RAILS);
const thresholds = {
  minSpendableLamports: 30_000_000n,
  minSplRawDefault: 100_000n,
  minSplRawByMint: { [OTHER]: 5_000_000n },
};
planSweep(rails, thresholds); // warm-up

const timings: number[] = [];
let eligible = 0;
for (let round = 0; round < ROUNDS; round++) {
  const start = performance.now();
  const items = planSweep(rails, thresholds);
  timings.push(performance.now() - start);
  eligible = items.filter((i) => i.status === "eligible").length;
}
timings.sort((a, b) => a - b);
const median = timings[Math.floor(timings.length / 2)]!;
const perRun = maxRailsWithinBudget();
console.log(`sweep plan: ${RAILS} candidate rails, ${ROUNDS} rounds (synthetic balances; noisy shared machine)`);
console.log(
  `  ` +
    `median ${median.toFixed(2)} ms, ` +
    `min ${timings[0]!.toFixed(2)} ms, max ${timings.at(-1)!.toFixed(2)} ms per plan of ${RAILS}`,
);
console.log(`  ${((median * 1000) / RAILS).toFixed(2)} µs per rail; ${eligible} eligible`);
console.log(
  `  one run takes at ` +
    `most ${perRun} rails (worst ` +
    `case ${worstCaseSubrequests(perRun)} of the job's ${SWEEP_JOB_SUBREQUEST_BUDGET} subrequests): ` +
    `${Math.ceil(RAILS / perRun)} runs ` +
    `cover ${RAILS} rails (${((Math.ceil(RAILS / perRun) * 15) / 60).toFixed(1)} h at one run per 15 min)`,
);
