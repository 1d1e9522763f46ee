import { expect, inject } from "vitest";
import type { FaultMode } from "../node/rpc-fault-proxy";

/**
 * A scenario of its own on the RPC fault proxy in front of the shared local chain (test/support/node/rpc-fault-proxy.ts):
 * point a facilitator's SOLANA_RPC_URL at `rpcUrl`, switch faults on with `setFaults`, read the calls it saw with `calls`.
 */
export function faultScenario() {
  const id = crypto.randomUUID();
  const base = inject("rpcFaultProxyUrl");
  const setFaults = async (mode: FaultMode) => {
    const response = await fetch(`${base}/control/${id}`, { method: "POST", body: JSON.stringify(mode) });
    expect(response.status).toBe(200);
  };
  const calls = async () => (await (await fetch(`${base}/control/${id}`)).json()) as Record<string, number>;
  return { rpcUrl: `${base}/s/${id}`, setFaults, calls };
}
