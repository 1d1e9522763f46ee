import { describe, expect, inject, it } from "vitest";
import { chainRpc, fundedBuyer } from "../../support/workerd/chain";
import { faultScenario } from "../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../support/workerd/isolated-facilitator";
import { USDC } from "../../support/workerd/payment-fixtures";

/**
 * Issue 27 item 2: /settle hears of the confirmation from the cluster's PubSub (a signatureSubscribe opened before the
 * send) and polls only when the push is late or the socket cannot be had. The HTTP RPC goes through the fault proxy
 * (test/support/node/rpc-fault-proxy.ts), which counts the calls of each scenario and refuses WebSocket upgrades; the
 * PubSub endpoint is the real local chain's, whose test-only confirmation lag holds a transaction at "processed".
 */

/** A facilitator on its own fee payer with a vault already made, and a fresh payment body for it. */
async function settleSetup(label: string, vars: Record<string, string>) {
  const scenario = await faultScenario();
  const f = await isolatedFacilitator(label, { SOLANA_RPC_URL: scenario.rpcUrl, ...vars });
  const buyer = await fundedBuyer(5_000_000);
  const line = await f.line(USDC, "100000");
  // the vault exists from here on
  expect((await f.post("/settle", await f.signedBody(buyer, line))).body.success).toBe(true);
  const body = await f.signedBody(buyer, line);
  const before = await scenario.calls();
  const callsSince = async () => {
    const after = await scenario.calls();
    return Object.fromEntries(
      Object.entries(after)
        .map(([method, n]) => [method, n - (before[method] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
  };
  return { f, body, callsSince };
}

const LAG_MS = 700;

describe("settle: confirmation by subscription, polling as the fallback", () => {
  it(
    "a confirmation that comes a slot later is pushed: one send, no status read, the answer right after " + "it",
    async () => {
      const s = await settleSetup("confirm-push", { SOLANA_WS_URL: inject("localnetUrl") });
      await chainRpc("localnet_setConfirmationLag", [s.f.feePayer, LAG_MS]);
      try {
        const startedAt = Date.now();
        const settled = await s.f.post("/settle", s.body);
        const elapsedMs = Date.now() - startedAt;
        expect(settled.status, JSON.stringify(settled.body)).toBe(200);
        expect(settled.body.success).toBe(true);
        expect(elapsedMs).toBeGreaterThanOrEqual(LAG_MS);
        // The polls this replaces read at 100, 250, 450, 750 ms: the push answers before the poll that would find it.
        expect(elapsedMs).toBeLessThan(LAG_MS + 400);
        expect(await s.callsSince()).toEqual({ sendTransaction: 1 });
      } finally {
        await chainRpc("localnet_setConfirmationLag", [s.f.feePayer, 0]);
      }
    },
  );

  it("no PubSub at the URL (upgrade refused): the same settle polls getSignatureStatuses and succeeds", async () => {
    // the PubSub URL defaults to the RPC URL: the proxy refuses upgrades
    const s = await settleSetup("confirm-no-pubsub", {});
    await chainRpc("localnet_setConfirmationLag", [s.f.feePayer, LAG_MS]);
    try {
      const settled = await s.f.post("/settle", s.body);
      expect(settled.status, JSON.stringify(settled.body)).toBe(200);
      expect(settled.body.success).toBe(true);
      const calls = await s.callsSince();
      expect(calls.websocket).toBe(1);
      expect(calls.sendTransaction).toBe(1);
      expect(calls.getSignatureStatuses).toBeGreaterThanOrEqual(2); // "processed" at first, "confirmed" after the lag
    } finally {
      await chainRpc("localnet_setConfirmationLag", [s.f.feePayer, 0]);
    }
  });

  it("SVC_SETTLE_CONFIRMATION=poll opens no socket and polls", async () => {
    const s = await settleSetup("confirm-poll", { SVC_SETTLE_CONFIRMATION: "poll" });
    const settled = await s.f.post("/settle", s.body);
    expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
    const calls = await s.callsSince();
    expect(calls.websocket).toBeUndefined();
    expect(calls).toMatchObject({ sendTransaction: 1, getSignatureStatuses: 1 }); // the local chain confirms at once
  });

  it("a confirmation later than the watchdog: a status read at the watchdog, then the push ends the wait", async () => {
    const s = await settleSetup("confirm-late", { SOLANA_WS_URL: inject("localnetUrl") });
    await chainRpc("localnet_setConfirmationLag", [s.f.feePayer, 1_600]);
    try {
      const settled = await s.f.post("/settle", s.body);
      expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
      const calls = await s.callsSince();
      // Pushed at 1.6 s, but the watchdog read at 1 s (still "processed") happened first; no further read after the
      // push.
      expect(calls.sendTransaction).toBe(1);
      expect(calls.getSignatureStatuses).toBeGreaterThanOrEqual(1);
      expect(calls.getSignatureStatuses).toBeLessThanOrEqual(2);
    } finally {
      await chainRpc("localnet_setConfirmationLag", [s.f.feePayer, 0]);
    }
  });
});
