import { expect, inject } from "vitest";
import type { FaultMode } from "../fixtures/rpc-fault-proxy";

/**
 * A fault scenario of its own on the RPC fault proxy (test/fixtures/rpc-fault-proxy.ts) in front of the real local
 * chain: point a facilitator's SOLANA_RPC_URL at `rpcUrl`, then script the faults with `setFaults`.
 */
export async function faultScenario() {
  const id = crypto.randomUUID();
  const base = inject("rpcFaultProxyUrl");
  const setFaults = async (mode: FaultMode) => {
    const response = await fetch(`${base}/control/${id}`, { method: "POST", body: JSON.stringify(mode) });
    expect(response.status).toBe(200);
  };
  return { rpcUrl: `${base}/s/${id}`, setFaults };
}
