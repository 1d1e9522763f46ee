/**
 * What each scheme charges a seller, in words, from the kind /supported lists (its `extra` carries the scheme's fee
 * parameters as the programs hold them): the one wording of fees, for the home page, the console and the served guides
 * (src/http/routes/static.ts fills `{{fees.<scheme>}}` with it). One rule per scheme, as the rails' fee quotes apply
 * it:
 * - exact: min(max(floor(swept × feeBps / 10,000), minFeeAmount), swept), taken at each sweep of the vault; a vault the
 *   seller activated itself (sovereign) pays sovereignFeeBps; the facilitator pays the network fee.
 * - sla-escrow: the same shape with the escrow's feeBps and minFeeAmount, taken on release; the oracle's tip
 *   (oracleFeeBps, no floor) only when an oracle renders a verdict; the buyer pays the network fee of the funding.
 * - upto: the payment-channels program takes no fee and this facilitator adds none; the whole claimed amount goes to
 *   payTo, the seller's wallet; the facilitator pays the network fees and fronts the channel's rent until it closes.
 * Pure: the home page renders it, the unit tests hold each scheme to it.
 */
import { formatUnits, percentFromBps, rawAmount } from "./amounts";
import { findAsset, type KnownAsset } from "./known-assets";

export interface SupportedKind {
  scheme: string;
  network: string;
  extra?: Record<string, unknown> | null;
}

/** The sentence after "`scheme` on `network`: ". */
export function feeLine(kind: SupportedKind, assets: readonly KnownAsset[]): string {
  const extra = kind.extra ?? {};
  switch (kind.scheme) {
    case "exact": {
      const sol =
        rawAmount(extra.minFeeAmountSol) !== null
          ? " (" + amountIn(extra.minFeeAmountSol, "SOL", assets) + " for SOL)"
          : "";
      const sovereign = rawAmount(extra.sovereignFeeBps);
      const ownVault = sovereign === null ? "a lower rate" : percentFromBps(Number(sovereign));
      return (
        "paid instantly into the seller's vault; " +
        rateWithFloor(extra, assets, SWEEP + " to the seller", "per sweep" + sol, "a sweep") +
        "; " +
        ownVault +
        " for sellers who activate their own vault; the facilitator pays the network fee" +
        smallestPayment(extra, assets)
      );
    }
    case "sla-escrow":
      return (
        "held in escrow until delivery; " +
        rateWithFloor(extra, assets, "of the price on release", "", "a price") +
        "; oracle tip " +
        percentFromBps(stringOf(extra.oracleFeeBps)) +
        " when an oracle gives a verdict; the buyer pays the network fee"
      );
    case "upto":
      return (
        "pay per use through a payment channel: the buyer deposits a ceiling, the seller claims what the request " +
        "used and the rest returns to the buyer; " +
        "no fee: the whole claimed amount goes to the seller's wallet; the facilitator pays the network fees and " +
        "fronts the channel's rent until it closes"
      );
    default:
      return "fees: ask GET /api/v1/facilitator/fee-quote for this scheme";
  }
}

const SWEEP = "of each sweep";

/**
 * An exact vault's rate as every page words it ("0.9% of each sweep"): the fee is taken when a sweep pays the vault's
 * balance out to the seller, so a rate "of each payment" would be wrong wherever the minimum fee applies.
 */
export function sweepFeeRate(bps: string | number | null | undefined): string {
  return percentFromBps(bps) + " " + SWEEP;
}

/**
 * The smallest exact payment: the program's minimum fee (below it the fee would take the whole price), refused by
 * enrich, the builders, /fee-quote and /verify alike (src/rails/exact/minimum-amount.ts; an operator may raise it).
 */
function smallestPayment(extra: Record<string, unknown>, assets: readonly KnownAsset[]): string {
  const minimum = rawAmount(extra.minFeeAmount);
  return minimum === null || minimum === 0n
    ? ""
    : "; the smallest payment is " + amountIn(minimum, "USDC", assets) + ", smaller prices are refused";
}

/**
 * "fee 1% of the price on release, at least 0.1 USDC: a price below 10 USDC pays more than 1%". Below
 * minFeeAmount × 10,000 / feeBps the floor is more than the rate, so the effective fee there is higher than the rate.
 * Without a floor in the kind, the rate alone.
 */
function rateWithFloor(
  extra: Record<string, unknown>,
  assets: readonly KnownAsset[],
  of: string,
  floorSuffix: string,
  subject: string,
): string {
  const bps = rawAmount(extra.feeBps);
  if (bps === null) return "fee unknown (ask GET /api/v1/facilitator/fee-quote)";
  const rate = percentFromBps(Number(bps));
  const minimum = rawAmount(extra.minFeeAmount);
  if (minimum === null || minimum === 0n) return "fee " + rate + " " + of;
  const floor =
    "fee " +
    rate +
    " " +
    of +
    ", at least " +
    amountIn(minimum, "USDC", assets) +
    (floorSuffix ? " " + floorSuffix : "");
  if (bps === 0n) return floor;
  const breakEven = (minimum * 10_000n + bps - 1n) / bps;
  return floor + ": " + subject + " below " + amountIn(breakEven, "USDC", assets) + " pays more than " + rate;
}

function amountIn(raw: unknown, symbol: string, assets: readonly KnownAsset[]): string {
  const asset = findAsset(assets, symbol);
  const value = stringOf(raw);
  return asset ? formatUnits(value, asset.decimals, asset.symbol) : value + " base units of " + symbol;
}

const stringOf = (value: unknown): string =>
  typeof value === "string" || typeof value === "number" || typeof value === "bigint" ? String(value) : "";
