import { redactRpcUrl } from "../../chain/rpc";
import { feeLine } from "../../page/browser/fee-lines";
import { type KnownAsset, parseKnownAssets } from "../../page/browser/known-assets";
import type { Config } from "../../platform/config/load-config";
import type { RailModule } from "../../rails/rail";
import { buildPayToSemantics } from "./agent-artifacts";

/**
 * A guide as this deployment serves it, so its examples can be pasted and run as they are:
 * - `{{origin}}`, `{{network}}`, `{{usdcMint}}`, `{{rpcUrl}}` (the public wallet RPC, as /health names it);
 * - `{{fees.<scheme>}}`: the scheme's fees in the words the home page and the console use (page/browser/fee-lines.ts),
 *   from the kind /supported lists, so a guide never states a fee another page words otherwise;
 * - the rails' own figures (e.g. the minimum exact payment, `RailDescription.guideFigures`) read from the
 *   configuration and the chain, so the number a guide states is the one /verify applies.
 * Rails are asked only when the guide has a placeholder left after the fixed ones.
 */
export async function fillGuide(
  config: Config,
  origin: string,
  text: string,
  rails: readonly RailModule[],
): Promise<string> {
  let filled = text
    .replaceAll("{{origin}}", origin)
    .replaceAll("{{network}}", config.network)
    .replaceAll("{{usdcMint}}", config.mints.usdc)
    .replaceAll("{{rpcUrl}}", redactRpcUrl(config.walletRpcUrl));
  if (!filled.includes("{{")) return filled;
  if (filled.includes("{{fees.")) {
    const [extras, assets] = await Promise.all([
      Promise.all(rails.map((rail) => rail.supportedExtra(config))),
      knownAssets(config, rails),
    ]);
    rails.forEach((rail, index) => {
      const extra = extras[index];
      const words = extra
        ? feeLine({ scheme: rail.scheme, network: config.network, extra }, assets)
        : `${rail.scheme} is not served here (see /supported)`;
      filled = filled.replaceAll(`{{fees.${rail.scheme}}}`, words);
    });
  }
  const figures: Record<string, string>[] = await Promise.all(
    rails.map((rail) => rail.describe?.guideFigures?.(config) ?? {}),
  );
  for (const [name, value] of figures.flatMap((f) => Object.entries(f)))
    filled = filled.replaceAll(`{{${name}}}`, value);
  return filled;
}

/** The assets the pages know, read from /agent-payTo-semantics.json's allowlist as the pages read it. */
async function knownAssets(config: Config, rails: readonly RailModule[]): Promise<KnownAsset[]> {
  return parseKnownAssets(await buildPayToSemantics(config, rails));
}
