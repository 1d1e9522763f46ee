import { env, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import { clearConfigCache } from "../../../../src/platform/config/load-config";
import { deleteParameter, writeParameter } from "../../../../src/store/parameters";
import { fundedBuyer } from "../../../support/workerd/chain";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { activatedSeller, USDC } from "../../../support/workerd/payment-fixtures";
import { API } from "../../../support/workerd/worker-http";

/**
 * Per-isolate caches outlive requests; what they hand out must not be a promise whose I/O belongs to another request
 * (src/platform/cache/share-once-fulfilled.ts). workerd cancels a request's outstanding I/O when the request ends or
 * its client goes away; a second request awaiting a promise of that I/O then never answers (before the fix, these
 * tests' request B hung until the test gave up). Each test, through SELF (every call its own request context in the one
 * isolate): request A starts a cold read through a slow RPC (the fault proxy holds getMultipleAccounts), request B
 * arrives while it is in flight, A's client goes away. B must answer; a later request C reuses what B read (settled
 * values are shared).
 */
const db = (env as unknown as Env).DB;
const HELD_MS = 1_000;
const ANSWER_DEADLINE_MS = 10_000;
const SELLER = "HvTrFwD6BtFzD1yPCXJXFvARLpk7EZq65YfsN361fWxQ";

afterEach(async () => {
  await deleteParameter(db, "SOLANA_RPC_URL");
  clearConfigCache();
});

/** Points the Worker (SELF) at a scenario of its own on the fault proxy, with getMultipleAccounts held for a while. */
async function slowRpcWorker() {
  const scenario = faultScenario();
  await writeParameter(db, "SOLANA_RPC_URL", scenario.rpcUrl);
  clearConfigCache();
  await scenario.setFaults({ delayMs: { getMultipleAccounts: HELD_MS } });
  const reads = async () => (await scenario.calls()).getMultipleAccounts ?? 0;
  return { reads };
}

/**
 * A request through the Worker's fetch handler; null when no answer came before the deadline (then it is abandoned).
 */
async function answerOf(path: string, signal?: AbortSignal): Promise<{ status: number; body: any } | null> {
  const abandon = new AbortController();
  const deadline = setTimeout(() => abandon.abort(), ANSWER_DEADLINE_MS);
  try {
    const response = await SELF.fetch(API + path, {
      signal: signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal,
    });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    if (abandon.signal.aborted) return null;
    throw error;
  } finally {
    clearTimeout(deadline);
  }
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 20) {
    if (waited > 5_000) throw new Error("the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A's client leaves while A's cold read is held at the proxy; B, which arrived meanwhile, answers or (null) hangs. */
async function answerAfterAnotherRequestLeft(path: string, reads: () => Promise<number>) {
  const before = await reads();
  const clientOfA = new AbortController();
  const a = answerOf(path, clientOfA.signal).catch((error: unknown) => error);
  await until(async () => (await reads()) > before); // A's read is at the proxy, held
  const b = answerOf(path);
  await new Promise((resolve) => setTimeout(resolve, 200)); // B is past its config and at the cache
  clientOfA.abort();
  expect(String(await a)).toMatch(/abort/i);
  return b;
}

describe("per-isolate caches never make one request wait on another request's I/O", () => {
  it(
    "UniversalSettle facts (exact /fee-quote): B answers after A's client left; C reuses the facts B " + "read",
    async () => {
      const { reads } = await slowRpcWorker();
      const path = `/fee-quote?scheme=exact&wallet=${SELLER}&asset=USDC&amount=1000000`;
      const b = await answerAfterAnotherRequestLeft(path, reads);
      expect(b, "request B never answered").not.toBeNull();
      expect(b!.status, JSON.stringify(b!.body)).toBe(200);
      expect(b!.body).toMatchObject({ scheme: "exact", feeBps: 100 });

      const before = await reads();
      expect((await answerOf(path))!.status).toBe(200);
      expect((await reads()) - before, "C reads only its seller's vault").toBe(1);
    },
  );

  it("SLA-Escrow facts (sla-escrow /fee-quote): B answers after A's client left; C reads nothing", async () => {
    const { reads } = await slowRpcWorker();
    const path = `/fee-quote?scheme=sla-escrow&wallet=${SELLER}&asset=USDC&amount=1000000`;
    const b = await answerAfterAnotherRequestLeft(path, reads);
    expect(b, "request B never answered").not.toBeNull();
    expect(b!.status, JSON.stringify(b!.body)).toBe(200);
    expect(b!.body).toMatchObject({ scheme: "sla-escrow", tier: "escrow" });

    const before = await reads();
    expect((await answerOf(path))!.status).toBe(200);
    expect(await reads()).toBe(before);
  });

  it("program health (/health): B answers after A's client left; C reads nothing", async () => {
    const { reads } = await slowRpcWorker();
    const b = await answerAfterAnotherRequestLeft("/health", reads);
    expect(b, "request B never answered").not.toBeNull();
    expect(b!.body.programs, JSON.stringify(b!.body)).toMatchObject({ ok: true });

    const before = await reads();
    expect((await answerOf("/health"))!.body.programs).toMatchObject({ ok: true });
    expect(await reads()).toBe(before);
  });
});

describe("the warm path keeps its speed", () => {
  it("a /verify of a payment to an existing vault, caches warm, costs one RPC call: simulateTransaction", async () => {
    const scenario = faultScenario();
    const f = await isolatedFacilitator("cross-request-caches", { SOLANA_RPC_URL: scenario.rpcUrl });
    const buyer = await fundedBuyer(5_000_000);
    const line = await f.line(USDC, "100000", await activatedSeller(USDC));
    expect((await f.post("/verify", await f.signedBody(buyer, line))).body.isValid).toBe(true); // warms the caches
    const body = await f.signedBody(buyer, line);
    const before = await scenario.calls();
    const verified = await f.post("/verify", body);
    expect(verified.body.isValid, JSON.stringify(verified.body)).toBe(true);
    const after = await scenario.calls();
    const made = Object.fromEntries(
      Object.keys(after)
        .map((method) => [method, after[method]! - (before[method] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
    expect(made).toEqual({ simulateTransaction: 1 });
  });
});
