/** The mints this deployment names (/agent-payTo-semantics.json), with the symbol and decimals the pages print. */

export const NATIVE_SOL_MINT = "11111111111111111111111111111111";

export interface KnownAsset {
  mint: string;
  symbol: string;
  decimals: number;
  native: boolean;
}

/** The assets of a /agent-payTo-semantics.json body; entries without a mint or decimals are left out. Pure. */
export function parseKnownAssets(body: unknown): KnownAsset[] {
  const mints = (body as { mintAllowlist?: { mints?: unknown } } | null)?.mintAllowlist?.mints;
  if (!Array.isArray(mints)) return [];
  const assets: KnownAsset[] = [];
  for (const entry of mints as { mint?: unknown; symbol?: unknown; decimals?: unknown; kind?: unknown }[]) {
    const decimals = Number(entry.decimals);
    if (typeof entry.mint !== "string" || !Number.isInteger(decimals) || decimals < 0) continue;
    const native = entry.kind === "native-sol" || entry.mint === NATIVE_SOL_MINT || entry.symbol === "SOL";
    assets.push({
      mint: entry.mint,
      symbol: typeof entry.symbol === "string" && entry.symbol ? entry.symbol : entry.mint,
      decimals,
      native,
    });
  }
  return assets;
}

/** The deployment's assets; none when the document cannot be read (amounts then show in base units). */
export async function loadKnownAssets(): Promise<KnownAsset[]> {
  try {
    const response = await fetch("/agent-payTo-semantics.json", { headers: { Accept: "application/json" } });
    return parseKnownAssets(await response.json());
  } catch {
    return [];
  }
}

/** The asset named by mint or symbol, if known. */
export function findAsset(assets: readonly KnownAsset[], mintOrSymbol: string): KnownAsset | undefined {
  return assets.find((a) => a.mint === mintOrSymbol) ?? assets.find((a) => a.symbol === mintOrSymbol);
}
