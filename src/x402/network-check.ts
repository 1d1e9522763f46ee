import type { Config } from "../platform/config/load-config";

/**
 * The one judgement of a line's network, shared by the builders, `/verify`, `/settle` and enrich: a string network
 * other than this deployment's is not served here, whatever else is wrong with the line (an EVM line's addresses are
 * not base58, yet its reason is `invalid_network`). Returns the sentence to answer with, or null when it is ours.
 */
export function foreignNetworkMessage(config: Config, field: string, network: unknown): string | null {
  if (typeof network !== "string" || network === config.network) return null;
  const kind = network.startsWith("solana:") ? "another Solana cluster" : "not a Solana network";
  return (
    `${field}: ${network} is ${kind}; this facilitator settles only ` +
    `on ${config.network} (see /supported). Pay that line through a facilitator of its network, or pick this ` +
    `network's line`
  );
}

/** The value at `path` inside a parsed JSON body, or undefined. */
export function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
