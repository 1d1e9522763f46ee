import type { Config } from "../platform/config/load-config";

/**
 * A per-isolate cache of settled chain readings, keyed by the RPC endpoint and what was read (program ids, a mint),
 * so a deployment switched to another cluster or program never reads another's answer. Only settled values are
 * kept: a read in flight belongs to the request that started it (src/platform/cache/share-once-fulfilled.ts), so
 * requests that miss at once each read the chain. A failed read is the caller's to leave out.
 */
export function endpointCache<V>(ttlMs: number) {
  const entries = new Map<string, { value: V; expiresAtMs: number }>();
  const keyOf = (config: Pick<Config, "rpcUrl">, parts: readonly string[]) => [config.rpcUrl, ...parts].join("|");
  return {
    get(config: Pick<Config, "rpcUrl">, parts: readonly string[]): V | undefined {
      const hit = entries.get(keyOf(config, parts));
      return hit && hit.expiresAtMs > Date.now() ? hit.value : undefined;
    },
    set(config: Pick<Config, "rpcUrl">, parts: readonly string[], value: V): void {
      entries.set(keyOf(config, parts), { value, expiresAtMs: Date.now() + ttlMs });
    },
  };
}
