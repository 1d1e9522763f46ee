import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { findVaultPda } from "../../../../../src/rails/exact/program/pda";
import { maxRailsWithinBudget } from "../../../../../src/rails/exact/sweep/budget";
import { DEVNET, PROGRAM_ID, USDC } from "../../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../../support/workerd/worker-http";

/**
 * A fleet larger than one run: ledger rows are written straight into D1 (these sellers' vaults do not exist on the
 * local chain, which the engine must report as (failed, none) without sending anything). The balances are still
 * read from the real chain, in batches.
 */
const BEARER = { Authorization: "Bearer test-operator-token" };
const FLEET = 250;

describe("sweeps: a fleet larger than one run", () => {
  it(
    "is covered oldest-first over several runs, each within the subrequest budget, and costs nothing without " +
      "balances",
    async () => {
      const now = Date.now();
      const wallets = await Promise.all(
        Array.from({ length: FLEET }, async () => (await generateKeyPairSigner()).address),
      );
      // A vault payment's payTo is the seller's vault (a payment to the wallet itself is no sweep candidate).
      const vaults = await Promise.all(wallets.map(async (wallet) => (await findVaultPda(PROGRAM_ID, wallet))[0]));
      const insert = env.DB.prepare(
        `INSERT INTO settlements (message_hash, signature, state, scheme, network, payer, pay_to, merchant_wallet, ` +
          `asset, amount, created_at_ms, updated_at_ms)
       VALUES (?1, ?2, ?3, 'exact', ?4, ?5, ?6, ?7, ?8, '1000000', ?9, ?9)`,
      );
      await env.DB.batch(
        wallets.flatMap((wallet, i) => [
          insert.bind(
            `hash-${i}`,
            `sig-${i}`,
            "confirmed",
            DEVNET,
            wallet,
            vaults[i],
            wallet,
            USDC,
            now - (FLEET - i) * 1000,
          ),
          // Neither a failed settle nor another scheme makes a rail a candidate.
          insert.bind(
            `failed-${i}`,
            `fsig-${i}`,
            "failed",
            DEVNET,
            wallet,
            vaults[i],
            `${wallet}`,
            "So11111111111111111111111111111111111111112",
            now,
          ),
        ]),
      );

      const perRun = maxRailsWithinBudget();
      const first = await call("/sweep", {
        method: "POST",
        headers: BEARER,
        json: { limit: 1000, cooldownSeconds: 3600 },
      });
      expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200);
      expect(first.body).toMatchObject({
        scanned: perRun,
        maxRailsPerRun: perRun,
        attempted: 0,
        succeeded: 0,
        failed: perRun,
        lamportsSpent: "0",
      });
      for (const item of first.body.items)
        expect(item).toMatchObject({
          status: "failed",
          action: "none",
          splMint: USDC,
          signature: null,
          error: expect.stringMatching(/does not exist/),
        });
      // Never attempted, the oldest settle first.
      expect(first.body.items.map((i: any) => i.wallet)).toEqual(wallets.slice(0, perRun));

      const second = await call("/sweep", {
        method: "POST",
        headers: BEARER,
        json: { limit: 1000, cooldownSeconds: 3600 },
      });
      expect(second.body.items.map((i: any) => i.wallet)).toEqual(wallets.slice(perRun));
      const third = await call("/sweep", {
        method: "POST",
        headers: BEARER,
        json: { limit: 1000, cooldownSeconds: 3600 },
      });
      expect(third.body.scanned).toBe(0);

      // Without the cooldown, the rail attempted longest ago comes first again.
      const fourth = await call("/sweep", {
        method: "POST",
        headers: BEARER,
        json: { limit: 5, cooldownSeconds: 0, dryRun: true },
      });
      expect(fourth.body.items.map((i: any) => i.wallet)).toEqual(wallets.slice(0, 5));

      const state = await env.DB.prepare(
        "SELECT COUNT(*) AS n, SUM(claim_id IS NOT NULL) AS held FROM sweep_state",
      ).first<{ n: number; held: number }>();
      expect(state).toEqual({ n: FLEET, held: 0 });

      // The RPC goes down mid-run: 502, the claims are given back, and the run is recorded as an error.
      const down = await callWithEnv({ SOLANA_RPC_URL: "http://127.0.0.1:9" }, "/sweep", {
        method: "POST",
        headers: { ...BEARER, "Content-Type": "application/json" },
        body: JSON.stringify({ limit: 5, cooldownSeconds: 0 }),
      });
      expect(down.status).toBe(502);
      expect(JSON.stringify(down.body)).not.toMatch(/at .*\.ts/); // no stack trace
      const after = await env.DB.prepare("SELECT SUM(claim_id IS NOT NULL) AS held FROM sweep_state").first<{
        held: number;
      }>();
      expect(after!.held).toBe(0);
      const run = await env.DB.prepare(
        "SELECT outcome, scanned, failed FROM sweep_runs ORDER BY id DESC LIMIT 1",
      ).first();
      expect(run).toEqual({ outcome: "error", scanned: 5, failed: 5 });
      expect((await call("/health")).body.lastSweepRun).toMatchObject({ outcome: "error" });
    },
  );
});

describe("sweeps: D1 claims", () => {
  it("of two runs claiming the same rails at the same moment, each rail goes to exactly one", async () => {
    const { claimSweepRails } = await import("../../../../../src/rails/exact/sweep/sweeps");
    const rails = await Promise.all(
      Array.from({ length: 40 }, async () => ({ wallet: (await generateKeyPairSigner()).address, rail: "SOL" })),
    );
    const now = Date.now();
    const claim = (claimId: string) =>
      claimSweepRails(env.DB, rails, { claimId, nowMs: now, expiresAtMs: now + 60_000, attemptedBeforeMs: now });
    const [a, b] = await Promise.all([claim("run-a"), claim("run-b")]);
    const key = (r: { wallet: string; rail: string }) => `${r.wallet}|${r.rail}`;
    expect(a.length + b.length).toBe(rails.length);
    expect(new Set([...a, ...b].map(key)).size).toBe(rails.length);
    // A live claim keeps a third run out even with no cooldown at all.
    expect(
      await claimSweepRails(env.DB, rails, {
        claimId: "run-c",
        nowMs: now + 1,
        expiresAtMs: now + 60_000,
        attemptedBeforeMs: now + 1,
      }),
    ).toEqual([]);
    // An expired claim (a run that died) may be taken over.
    const later = now + 61_000;
    expect(
      await claimSweepRails(env.DB, rails, {
        claimId: "run-d",
        nowMs: later,
        expiresAtMs: later + 60_000,
        attemptedBeforeMs: later,
      }),
    ).toHaveLength(rails.length);
  });
});
