import type { Config } from "../config/load-config";
import { RAILS } from "../schemes/registry";

export interface SupportedKind {
  x402Version: 2;
  scheme: string;
  network: string;
  extra: Record<string, unknown>;
}

export interface SupportedResponse {
  kinds: SupportedKind[];
  extensions: string[];
  signers: Record<string, string[]>;
}

/** `/supported` in the shape the official x402 facilitator client reads (wire-notes "Discovery shapes"). */
export async function buildSupported(config: Config): Promise<SupportedResponse> {
  const kinds = await Promise.all(
    RAILS.map(async (rail) => ({
      x402Version: 2 as const,
      scheme: rail.scheme,
      network: config.network,
      extra: await rail.supportedExtra(config),
    })),
  );
  return { kinds, extensions: ["bazaar"], signers: { [config.network]: [config.feePayer.address] } };
}
