/** Amounts and rates as people read them. Pure: no DOM, so the unit tests import it as it is. */

/** Raw base units as a decimal amount ("10000", 6, "USDC" → "0.01 USDC"); a non-integer raw value is "unknown". */
export function formatUnits(
  raw: string | bigint | number | null | undefined,
  decimals: number,
  symbol?: string,
): string {
  if (raw === null || raw === undefined || raw === "" || !/^-?[0-9]+$/.test(String(raw))) return "unknown";
  let value = BigInt(raw);
  const negative = value < 0n;
  if (negative) value = -value;
  const base = 10n ** BigInt(decimals);
  const fraction = (value % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return (
    (negative ? "-" : "") + (value / base).toString() + (fraction ? "." + fraction : "") + (symbol ? " " + symbol : "")
  );
}

/** Basis points as a percentage ("90" → "0.9%"); anything that is not a number of bps is "unknown". */
export function percentFromBps(bps: string | number | null | undefined): string {
  const n = typeof bps === "string" && bps.trim() !== "" ? Number(bps) : typeof bps === "number" ? bps : NaN;
  return Number.isFinite(n) ? n / 100 + "%" : "unknown";
}

/** `part` as a percentage of `whole`, to two decimals at most (10000 of 500000 → "2%"; 1 of 3 → "33.33%"). */
export function effectivePercent(part: bigint, whole: bigint): string {
  if (whole <= 0n) return "unknown";
  const hundredths = (part * 10_000n + whole / 2n) / whole; // hundredths of a percent, rounded half up
  const fraction = (hundredths % 100n).toString().padStart(2, "0").replace(/0+$/, "");
  return (hundredths / 100n).toString() + (fraction ? "." + fraction : "") + "%";
}

/** The non-negative integer a decimal string (or number) holds, or null: amounts on the wire are decimal strings. */
export function rawAmount(value: unknown): bigint | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^[0-9]+$/.test(value)) return BigInt(value);
  return null;
}
