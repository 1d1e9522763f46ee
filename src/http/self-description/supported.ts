import type { Config } from "../../platform/config/load-config";
import { RAILS } from "../../rails/registry";
import type { RailModule } from "../../rails/rail";
import { PAYMENT_IDENTIFIER } from "../../x402/payment-identifier";

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

/** `/supported` in the shape the official x402 facilitator client reads (docs/wire-notes.md "Discovery shapes"): the rails served here. */
export async function buildSupported(config: Config, rails: readonly RailModule[] = RAILS): Promise<SupportedResponse> {
  const extras = await Promise.all(rails.map((rail) => rail.supportedExtra(config)));
  const kinds: SupportedKind[] = [];
  rails.forEach((rail, i) => {
    const extra = extras[i];
    if (extra) kinds.push({ x402Version: 2, scheme: rail.scheme, network: config.network, extra });
  });
  return { kinds, extensions: ["bazaar", PAYMENT_IDENTIFIER], signers: { [config.network]: [config.feePayer.address] } };
}
