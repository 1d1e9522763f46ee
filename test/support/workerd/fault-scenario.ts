import { expect, inject } from "vitest";
import type { FaultMode } from "../node/rpc-fault-proxy";

/**
 * A scenario of its own on the RPC fault proxy in front of the shared local chain
 * (test/support/node/rpc-fault-proxy.ts), or on another proxy of test/global-setup.ts (`base`): point a facilitator's
 * SOLANA_RPC_URL at `rpcUrl`, switch faults on with `setFaults`, read the calls it saw with `calls`.
 */
export function faultScenario(base: string = inject("rpcFaultProxyUrl")) {
  const id = crypto.randomUUID();
  const setFaults = async (mode: FaultMode) => {
    const response = await fetch(`${base}/control/${id}`, { method: "POST", body: JSON.stringify(mode) });
    expect(response.status).toBe(200);
  };
  const calls = async () => (await (await fetch(`${base}/control/${id}`)).json()) as Record<string, number>;
  return { rpcUrl: `${base}/s/${id}`, setFaults, calls };
}
