import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { findAssociatedTokenPda } from "@solana-program/token";
import { address } from "@solana/kit";
import { USDC } from "../support/workerd/payment-fixtures";
import { fundedBuyer, tokenBalance } from "../support/workerd/chain";
import { isolatedFacilitator } from "../support/workerd/isolated-facilitator";
import { faultScenario } from "../support/workerd/fault-scenario";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");

/**
 * Issue 8 item 4: honest answers under RPC and database faults. The RPC faults come from a real proxy in front
 * of the real local chain (test/support/node/rpc-fault-proxy.ts); each test has its own fault scenario.
 */

/** A seller whose vault exists (one payment settled through the healthy proxy) and a buyer with funds. */
async function sellerWithVault(label: string) {
  const faults = await faultScenario();
  const f = await isolatedFacilitator(label, { SOLANA_RPC_URL: faults.rpcUrl, SVC_SETTLE_CONFIRM_TIMEOUT_MS: "2000" });
  const buyer = await fundedBuyer(5_000_000);
  const line = await f.line(USDC, "100000");
  expect((await f.post("/settle", await f.signedBody(buyer, line))).body.success).toBe(true);
  const [vaultAta] = await findAssociatedTokenPda({ owner: address(line.payTo), mint: USDC, tokenProgram: TOKEN_PROGRAM });
  return { ...faults, f, buyer, line, vaultAta };
}

/**
 * workerd's local D1 cannot be made to fail on demand, so a thin wrapper in front of the real binding fails the first
 * statement that `matches`, once; everything else reaches the real database.
 */
function failingOnce(matches: (sql: string) => boolean, message: string): { db: D1Database; failed: () => boolean } {
  let failuresLeft = 1;
  const db = new Proxy(env.DB, {
    get(target, property) {
      if (property !== "prepare") return Reflect.get(target, property, target);
      return (sql: string) => {
        if (matches(sql) && failuresLeft-- > 0) throw new Error(`D1_ERROR: ${message}`);
        return target.prepare(sql);
      };
    },
  });
  return { db, failed: () => failuresLeft <= 0 };
}

describe("settle under RPC faults: once the cluster may have the transaction, only success or pending", () => {
  it("a dropped sendTransaction answer → 202 settlement_pending with the signature; a retry finds out at once", async () => {
    const s = await sellerWithVault("drop-send");
    const body = await s.f.signedBody(s.buyer, s.line);
    await s.setFaults({ dropSendAnswer: true });
    const dropped = await s.f.post("/settle", body);
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
    expect(dropped.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(dropped.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    await s.setFaults({});
    const startedAt = Date.now();
    const retry = await s.f.post("/settle", body);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toMatchObject({ success: true, transaction: dropped.body.transaction });
    expect(Date.now() - startedAt).toBeLessThan(3_000); // one status call, not a lease wait plus a confirmation budget
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n); // exactly one transfer for this payment
  });

  it("status polling that fails after the send → 202 with the signature (never a failure without one)", async () => {
    const s = await sellerWithVault("status-fail");
    const body = await s.f.signedBody(s.buyer, s.line);
    await s.setFaults({ failMethods: ["getSignatureStatuses"] });
    const pending = await s.f.post("/settle", body);
    expect(pending.status, JSON.stringify(pending.body)).toBe(202);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(pending.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    // The RPC is now down altogether: a retry still answers pending with the signature, not a bare failure.
    await s.setFaults({ down: true });
    const whileDown = await s.f.post("/settle", body);
    expect(whileDown.status, JSON.stringify(whileDown.body)).toBe(202);
    expect(whileDown.body).toMatchObject({ errorReason: "settlement_pending", transaction: pending.body.transaction });

    await s.setFaults({});
    const recovered = await s.f.post("/settle", body);
    expect(recovered.body, JSON.stringify(recovered.body)).toMatchObject({ success: true, transaction: pending.body.transaction });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });

  it("a D1 write that fails after the chain confirmed → success (the chain is the truth), and the write is retried", async () => {
    const s = await sellerWithVault("d1-fault");
    const body = await s.f.signedBody(s.buyer, s.line);
    // The one statement that records the confirmation fails once.
    s.f.setEnv({ DB: failingOnce((sql) => sql.includes("success_reported_at_ms = ?1"), "injected write failure").db });
    const settled = await s.f.post("/settle", body);
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.success).toBe(true);

    // The retried write lands shortly after; from then on a replay is a duplicate, not a second success.
    let replay: Awaited<ReturnType<typeof s.f.post>> | null = null;
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const row = await env.DB.prepare("SELECT success_reported_at_ms FROM settlements WHERE signature = ?").bind(settled.body.transaction).first();
      if (row?.success_reported_at_ms) {
        replay = await s.f.post("/settle", body);
        break;
      }
    }
    expect(replay?.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
  });
});

describe("settle when the ledger claim fails while the send is already out", () => {
  it("→ 202 settlement_pending with the signature, never success; a retry claims the row and hears the one success", async () => {
    const s = await sellerWithVault("claim-fault");
    const body = await s.f.signedBody(s.buyer, s.line);
    // The ledger claim (the INSERT into settlements) fails once.
    const claimFault = failingOnce((sql) => /^\s*insert into "?settlements"?\s/i.test(sql), "injected claim failure");
    s.f.setEnv({ DB: claimFault.db });
    const first = await s.f.post("/settle", body);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(first.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(claimFault.failed()).toBe(true);

    const retry = await s.f.post("/settle", body);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toMatchObject({ success: true, transaction: first.body.transaction });
    const replay = await s.f.post("/settle", body);
    expect(replay.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n); // one transfer for this payment
  });
});

describe("/verify of a settled payment after its blockhash expired", () => {
  // The shared test chain cannot be moved ~150 blocks forward without expiring other files' payments, so the proxy
  // answers simulateTransaction as the cluster does by then (BlockhashNotFound); everything else is the real chain.
  it("is still duplicate_settlement naming the settlement; an unsettled payment is blockhash_expired", async () => {
    const s = await sellerWithVault("verify-after-expiry");
    const settledBody = await s.f.signedBody(s.buyer, s.line);
    const settled = await s.f.post("/settle", settledBody);
    expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
    const unsettledBody = await s.f.signedBody(s.buyer, s.line);

    await s.setFaults({ blockhashExpired: true });
    const replay = await s.f.post("/verify", settledBody);
    expect(replay.status, JSON.stringify(replay.body)).toBe(400);
    expect(replay.body).toMatchObject({ isValid: false, invalidReason: "duplicate_settlement" });
    expect(replay.body.invalidMessage).toContain(settled.body.transaction);

    const stale = await s.f.post("/verify", unsettledBody);
    expect(stale.status, JSON.stringify(stale.body)).toBe(400);
    expect(stale.body).toMatchObject({ isValid: false, invalidReason: "blockhash_expired" });
  });
});
