import type { Config } from "../../platform/config/load-config";
import { type RailModule, railSwitchesOf } from "../../rails/rail";
import { PAYMENT_IDENTIFIER } from "../../x402/payment-identifier";

export interface SupportedKind {
  x402Version: 2;
  scheme: string;
  network: string;
  extra: Record<string, unknown>;
}

/** A rail (or one `payTo` form of `exact`) that is not offered here, and why. */
export interface RailNotOffered {
  scheme: string;
  payToForm?: string;
  reason: "rail_not_enabled" | "program_not_available";
  why: string;
}

export interface SupportedResponse {
  kinds: SupportedKind[];
  extensions: string[];
  signers: Record<string, string[]>;
  /** Not read by x402 clients (their schemas drop unknown keys): tells an operator or agent what is off and why. */
  notOffered: RailNotOffered[];
}

/**
 * `/supported` in the shape the official x402 facilitator client reads (docs/wire-notes.md "Discovery shapes"): the
 * rails served here, each with the `payTo` forms it takes (`extra.payToForms`), and the rails that are not, with why.
 */
export async function buildSupported(config: Config, rails: readonly RailModule[]): Promise<SupportedResponse> {
  const extras = await Promise.all(rails.map((rail) => rail.supportedExtra(config)));
  const kinds: SupportedKind[] = [];
  const notOffered: RailNotOffered[] = [];
  rails.forEach((rail, i) => {
    const extra = extras[i];
    if (extra) kinds.push({ x402Version: 2, scheme: rail.scheme, network: config.network, extra });
    const switches = railSwitchesOf(rail, config);
    for (const { payToForm, setting } of switches) {
      if (!setting.enabled)
        notOffered.push({
          scheme: rail.scheme,
          ...(payToForm ? { payToForm } : {}),
          reason: "rail_not_enabled",
          why: setting.why,
        });
    }
    if (!extra && switches.some(({ setting }) => setting.enabled)) {
      notOffered.push({
        scheme: rail.scheme,
        reason: "program_not_available",
        why: `the ${rail.scheme} program or its accounts were not found on this cluster (see /health programs)`,
      });
    }
  });
  return {
    kinds,
    extensions: ["bazaar", PAYMENT_IDENTIFIER],
    signers: { [config.network]: [config.feePayer.address] },
    notOffered,
  };
}
