/** The seller's sales in its payment history, counted once each. Pure: the unit tests import it as it is. */
import { rawAmount } from "../amounts";

export interface HistoryEntry {
  outcome: string;
  /** `deposit`: a buyer's ceiling locked for a later claim (the claim is the sale); `sale`, or null on old rows. */
  role?: "sale" | "deposit" | null;
  amount?: string;
  asset: string;
}

/**
 * "2 sales: 0.762345 USDC": settled sales with something sold, summed per asset. A deposit (held for a claim), a
 * cancel (a claim of nothing) and a failed attempt are no sale.
 */
export function salesSummary(settled: readonly HistoryEntry[], inUnits: (mint: string, raw: bigint) => string): string {
  const totals = new Map<string, bigint>();
  let count = 0;
  for (const entry of settled) {
    const amount = rawAmount(entry.amount);
    if (entry.outcome !== "settled" || entry.role === "deposit" || amount === null || amount === 0n) continue;
    count++;
    totals.set(entry.asset, (totals.get(entry.asset) ?? 0n) + amount);
  }
  const sums = [...totals].map(([mint, raw]) => inUnits(mint, raw));
  return count + (count === 1 ? " sale" : " sales") + (sums.length > 0 ? ": " + sums.join(" + ") : "");
}
