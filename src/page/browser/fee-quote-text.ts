/**
 * A /fee-quote answer in words, with the effective rate where it differs from the nominal one: the minimum fee of a
 * small amount ("fee 0.01 USDC, 2% of 0.5 USDC: the minimum fee, above the 0.9% rate"), or a fee capped at the
 * amount. Pure.
 */
import { effectivePercent, formatUnits, percentFromBps, rawAmount } from "./amounts";

export interface FeeQuoteAnswer {
  amount: string;
  feeBps: number | string;
  protocolFee: string;
  sellerNets: string;
  tier: string;
  provisioningRecoveryWithheld?: string;
}

/** "0.49 USDC (fee 0.01 USDC, 2% of 0.5 USDC: the minimum fee, above the 0.9% rate; sovereign)". */
export function sweepPaysText(quote: FeeQuoteAnswer, decimals: number, symbol: string): string {
  const units = (raw: string | bigint) => formatUnits(raw, decimals, symbol);
  return units(quote.sellerNets) + " (" + feeText(quote, units) + withheldText(quote, units) + ", " + quote.tier + ")";
}

function feeText(quote: FeeQuoteAnswer, units: (raw: string | bigint) => string): string {
  const rate = percentFromBps(quote.feeBps);
  const amount = rawAmount(quote.amount);
  const fee = rawAmount(quote.protocolFee);
  const bps = rawAmount(typeof quote.feeBps === "number" ? quote.feeBps : String(quote.feeBps));
  if (amount === null || fee === null || bps === null || amount === 0n)
    return "fee " + units(quote.protocolFee) + " at " + rate;
  if (fee === (amount * bps) / 10_000n) return "fee " + units(fee) + " at " + rate;
  const why = fee === amount ? "the minimum fee takes it all" : "the minimum fee, above the " + rate + " rate";
  return "fee " + units(fee) + ", " + effectivePercent(fee, amount) + " of " + units(amount) + ": " + why;
}

function withheldText(quote: FeeQuoteAnswer, units: (raw: string | bigint) => string): string {
  const withheld = rawAmount(quote.provisioningRecoveryWithheld);
  return withheld !== null && withheld > 0n ? "; " + units(withheld) + " withheld toward the vault's setup cost" : "";
}
