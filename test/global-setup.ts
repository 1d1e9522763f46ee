import type { TestProject } from "vitest/node";
import { startLocalnet } from "../localnet/server";
import { TEST_FEE_PAYER } from "./support/keys";
import { startDirectorySeller } from "./support/node/directory-seller";
import { testLocalnetPort } from "./support/node/ports";
import { startRpcFaultProxy } from "./support/node/rpc-fault-proxy";

/**
 * Starts a real local chain for the worker tests (the Worker inside workerd reaches it over 127.0.0.1)
 * and funds the test fee payer. Stopped when the run ends.
 */
export default async function setup(project: TestProject) {
  const localnet = await startLocalnet({ port: await testLocalnetPort(), quiet: true });
  await rpc(localnet.url, "requestAirdrop", [TEST_FEE_PAYER.address, 100_000_000_000]);
  project.provide("localnetUrl", localnet.url);
  // A second chain for the one file that moves a chain's clock (localnet_warpTime): on the shared chain that would
  // expire other files' payments under them.
  const warpableLocalnet = await startLocalnet({ port: 0, quiet: true });
  await rpc(warpableLocalnet.url, "requestAirdrop", [TEST_FEE_PAYER.address, 100_000_000_000]);
  project.provide("warpableLocalnetUrl", warpableLocalnet.url);
  const faultProxy = await startRpcFaultProxy(localnet.url);
  project.provide("rpcFaultProxyUrl", faultProxy.url);
  // A third chain, behind a fault proxy of its own, for the test that moves a chain's slots (localnet_warpSlots) to
  // expire a blockhash at once: on either chain above that would expire other files' transactions in flight.
  const slotWarpLocalnet = await startLocalnet({ port: 0, quiet: true });
  await rpc(slotWarpLocalnet.url, "requestAirdrop", [TEST_FEE_PAYER.address, 100_000_000_000]);
  project.provide("slotWarpLocalnetUrl", slotWarpLocalnet.url);
  const slotWarpFaultProxy = await startRpcFaultProxy(slotWarpLocalnet.url);
  project.provide("slotWarpRpcFaultProxyUrl", slotWarpFaultProxy.url);
  // A real seller origin on loopback for the resource directory tests (probe, manifest harvest).
  const directorySeller = await startDirectorySeller();
  project.provide("directorySellerOrigin", directorySeller.origin);
  return async () => {
    for (const [name, server] of [
      ["directory seller", directorySeller],
      ["RPC fault proxy", faultProxy],
      ["slot-warp RPC fault proxy", slotWarpFaultProxy],
      ["slot-warp local chain", slotWarpLocalnet],
      ["warpable local chain", warpableLocalnet],
      ["local chain", localnet],
    ] as const) {
      await closeWithin(name, server.close());
    }
  };
}

/** A server that does not close within a few seconds is reported and left behind: the run's end must not wait on it. */
async function closeWithin(name: string, closing: Promise<void>, timeoutMs = 5_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
  if ((await Promise.race([closing.then(() => "closed" as const), late])) === "late") {
    console.warn(`global teardown: the ${name} did not close within ${timeoutMs} ms (an open connection); leaving it`);
  }
  clearTimeout(timer);
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

declare module "vitest" {
  export interface ProvidedContext {
    localnetUrl: string;
    warpableLocalnetUrl: string;
    directorySellerOrigin: string;
    rpcFaultProxyUrl: string;
    slotWarpLocalnetUrl: string;
    slotWarpRpcFaultProxyUrl: string;
  }
}
