import { env } from "cloudflare:test";
import { type Address, address, generateKeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../../../src/env";
import { RAIL_JOBS_CRON, runScheduled } from "../../../../../src/jobs/scheduled";
import { clearConfigCache } from "../../../../../src/platform/config/load-config";
import { RAILS } from "../../../../../src/rails/registry";
import { TEST_FEE_PAYER } from "../../../../support/keys";
import {
  chainRpc,
  fundedBuyer,
  lamportsOf,
  nextBlockhash,
  signAndSend,
  tokenBalance,
} from "../../../../support/workerd/chain";
import {
  createUsdcAccount,
  enrichedLine,
  feeDestination,
  NATIVE_SOL,
  signedPaymentBody,
  USDC,
} from "../../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../../support/workerd/worker-http";

/**
 * Sweeps against the local chain's stand-in UniversalSettle program: real payments settled through /settle into
 * several vaults, real Sweep transactions sent by the Worker, balances read back from chain.
 */

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const BEARER = { Authorization: "Bearer test-operator-token" };

interface Seller {
  wallet: Address;
  vault: Address;
}

async function paySeller(asset: Address, amount: string, seller: Address): Promise<Seller> {
  const buyer = await fundedBuyer(asset === USDC ? 20_000_000 : 0);
  const line = await enrichedLine(asset, amount, seller);
  const settled = await call("/settle", { method: "POST", json: await signedPaymentBody(buyer, line) });
  expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
  return { wallet: seller, vault: address(line.payTo) };
}

async function sovereignSeller(): Promise<Address> {
  const seller = await fundedBuyer(0);
  const provision = await call("/sellers/provision-tx", {
    method: "POST",
    json: { wallet: seller.address, asset: "USDC" },
  });
  expect(provision.status, JSON.stringify(provision.body)).toBe(200);
  await signAndSend(provision.body.transaction, [seller]);
  return seller.address;
}

const newWallet = async () => (await generateKeyPairSigner()).address;

async function usdcAta(owner: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM }))[0];
}

/** What one transaction did to the fee payer and to one token account, from the chain's own transaction record. */
async function transactionEffects(signature: string, tokenAccount?: Address) {
  const tx = await chainRpc<any>("getTransaction", [
    signature,
    { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" },
  ]);
  const keys: string[] = tx.transaction.message.accountKeys;
  expect(keys[0]).toBe(TEST_FEE_PAYER.address);
  const feePayerSpent = BigInt(tx.meta.preBalances[0]) - BigInt(tx.meta.postBalances[0]);
  let tokenDelta = 0n;
  if (tokenAccount) {
    const index = keys.indexOf(tokenAccount);
    const amount = (list: any[]) => BigInt(list.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? "0");
    tokenDelta = amount(tx.meta.postTokenBalances) - amount(tx.meta.preTokenBalances);
  }
  return { feePayerSpent, tokenDelta, fee: BigInt(tx.meta.fee), err: tx.meta.err };
}

const sweep = (json?: unknown, headers: Record<string, string> = BEARER) =>
  call("/sweep", { method: "POST", headers, ...(json === undefined ? {} : { json }) });

describe("sweeps: operator auth", () => {
  it("refuses a missing or wrong bearer token (401) and answers 503 when no token is configured", async () => {
    expect((await sweep({ dryRun: true }, {})).status).toBe(401);
    const wrong = await sweep({ dryRun: true }, { Authorization: "Bearer test-operator-tokeX" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("UNAUTHORIZED");
    expect((await call("/sweep-cron", { headers: { Authorization: "Bearer nope" } })).status).toBe(401);
    const unconfigured = await callWithEnv({ SVC_OPERATOR_TOKEN: "", SVC_SWEEP_CRON_TOKEN: "" }, "/sweep", {
      method: "POST",
      headers: BEARER,
    });
    expect(unconfigured.status).toBe(503);
  });

  it(
    "still takes the token under its former name SVC_SWEEP_CRON_TOKEN (a deployed secret keeps working); " +
      "SVC_OPERATOR_TOKEN wins when both are set",
    async () => {
      const dryRun = (headers: Record<string, string>) => ({
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({ dryRun: true }),
      });
      const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
      const formerOnly = { SVC_OPERATOR_TOKEN: "", SVC_SWEEP_CRON_TOKEN: "former-name-token" };
      expect((await callWithEnv(formerOnly, "/sweep", dryRun(bearer("former-name-token")))).status).toBe(200);
      expect((await callWithEnv(formerOnly, "/sweep", dryRun(bearer("test-operator-token")))).status).toBe(401);
      const both = { SVC_OPERATOR_TOKEN: "new-name-token", SVC_SWEEP_CRON_TOKEN: "former-name-token" };
      expect((await callWithEnv(both, "/sweep", dryRun(bearer("new-name-token")))).status).toBe(200);
      expect((await callWithEnv(both, "/sweep", dryRun(bearer("former-name-token")))).status).toBe(401);
    },
  );

  it("is listed in /capabilities with its auth", async () => {
    const capabilities = (await call("/capabilities")).body;
    expect(capabilities.features.operatorSweeps).toBe(true);
    expect(capabilities.httpEndpoints.sweep).toEqual({
      method: "POST",
      path: "/api/v1/facilitator/sweep",
      auth: "bearer",
    });
    expect(capabilities.httpEndpoints.sweepCron).toEqual({
      method: "GET",
      path: "/api/v1/facilitator/sweep-cron",
      auth: "bearer",
    });
    expect(capabilities.httpEndpoints.vaultSnapshot.path).toBe("/api/v1/facilitator/vault-snapshot");
  });

  it("rejects unknown or malformed body fields with a 400 naming the field", async () => {
    const bad = await sweep({ limit: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/limit/);
    expect((await sweep({ dryRun: "yes" })).status).toBe(400);
    expect((await sweep({ drain: true })).status).toBe(400);
  });
});

describe("sweeps: plan, dry run, real runs, cooldown, concurrency, cron", () => {
  let sovereign: Seller; // USDC, 5 USDC, sovereign (90 bps)
  let jitUsdc: Seller; // USDC, 2 USDC, vault fronted by the facilitator (100 bps + recovery)
  let smallUsdc: Seller; // USDC, 0.05 USDC, sovereign: below the 0.10 USDC threshold
  let jitSol: Seller; // SOL, 0.05 SOL: above the 0.03 SOL threshold
  let smallSol: Seller; // SOL, 0.01 SOL: below
  const byWallet = (items: any[], seller: Seller) => items.find((i) => i.wallet === seller.wallet);

  beforeAll(async () => {
    sovereign = await paySeller(USDC, "5000000", await sovereignSeller());
    jitUsdc = await paySeller(USDC, "2000000", await newWallet());
    // Sweeps never create a seller's token account (test/worker/rails/exact/sweep/rent-farming.test.ts): these two
    // sellers have theirs, created by another wallet (any wallet can).
    const helper = await fundedBuyer(0);
    for (const seller of [sovereign, jitUsdc]) await createUsdcAccount(seller.wallet, helper);
    // Below the provisioning recovery target the facilitator fronts no vault: this seller activated its own.
    smallUsdc = await paySeller(USDC, "50000", await sovereignSeller());
    jitSol = await paySeller(NATIVE_SOL, "50000000", await newWallet());
    smallSol = await paySeller(NATIVE_SOL, "10000000", await newWallet());
  }, 180_000);

  it("a dry run lists every rail with its (status, action) and changes nothing on chain or in D1", async () => {
    const before = await tokenBalance(await usdcAta(sovereign.vault));
    const dry = await sweep({ dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      scanned: 5,
      attempted: 0,
      succeeded: 0,
      skippedBelowThreshold: 2,
      failed: 0,
      lamportsSpent: "0",
    });
    expect(byWallet(dry.body.items, sovereign)).toMatchObject({
      settlementMode: "spl",
      splMint: USDC,
      availableRaw: "5000000",
      thresholdRaw: "100000",
      status: "eligible",
      action: "dry_run",
      signature: null,
    });
    expect(byWallet(dry.body.items, jitUsdc)).toMatchObject({
      availableRaw: "2000000",
      status: "eligible",
      action: "dry_run",
    });
    expect(byWallet(dry.body.items, smallUsdc)).toMatchObject({
      availableRaw: "50000",
      status: "skipped",
      action: "below_threshold",
    });
    expect(byWallet(dry.body.items, jitSol)).toMatchObject({
      settlementMode: "native_sol",
      splMint: null,
      availableRaw: "50000000",
      thresholdRaw: "30000000",
      status: "eligible",
    });
    expect(byWallet(dry.body.items, smallSol)).toMatchObject({
      availableRaw: "10000000",
      status: "skipped",
      action: "below_threshold",
    });
    expect(await tokenBalance(await usdcAta(sovereign.vault))).toBe(before);
    const rows = await env.DB.prepare(
      "SELECT (SELECT COUNT(*) FROM sweep_state) AS rails, (SELECT COUNT(*) FROM sweep_runs) AS runs",
    ).first<{ rails: number; runs: number }>();
    expect(rows).toEqual({ rails: 0, runs: 0 });
  });

  it(
    "two concurrent real runs sweep each eligible rail exactly once; sellers get balance − fee (− " + "recovery)",
    async () => {
      // cooldownSeconds 0: only the D1 claim stands between the two runs.
      const [first, second] = await Promise.all([sweep({ cooldownSeconds: 0 }), sweep({ cooldownSeconds: 0 })]);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      const items = [...first.body.items, ...second.body.items];
      const swept = items.filter((i) => i.status === "ok");
      expect(swept.map((i) => i.wallet).sort()).toEqual([sovereign.wallet, jitUsdc.wallet, jitSol.wallet].sort());
      expect(items.filter((i) => i.status === "failed")).toEqual([]);
      for (const item of swept)
        expect(item).toMatchObject({ action: "sweep_submitted", confirmed: true, signature: expect.any(String) });

      // Sovereign: 90 bps of 5 USDC = 45,000; nothing withheld.
      expect(await tokenBalance(await usdcAta(sovereign.wallet))).toBe(4_955_000n);
      expect(await tokenBalance(await usdcAta(sovereign.vault))).toBe(0n);
      // Fronted vault: 100 bps of 2 USDC = 20,000, and the 1,000,000 raw provisioning recovery is withheld.
      expect(await tokenBalance(await usdcAta(jitUsdc.wallet))).toBe(980_000n);
      // SOL, fronted: 100 bps of 0.05 SOL = 500,000, recovery 10,000,000 lamports withheld.
      expect(await lamportsOf(jitSol.wallet)).toBe(39_500_000n);
      // Below threshold: untouched.
      expect(await tokenBalance(await usdcAta(smallUsdc.vault))).toBe(50_000n);

      // The fee receiver's token account received fee (+ recovery) in each USDC sweep, per the chain's own record.
      const feeOwner = await feeDestination();
      const feeAta = await usdcAta(feeOwner);
      const sovereignItem = byWallet(swept, sovereign);
      const jitItem = byWallet(swept, jitUsdc);
      expect((await transactionEffects(sovereignItem.signature, feeAta)).tokenDelta).toBe(45_000n);
      expect((await transactionEffects(jitItem.signature, feeAta)).tokenDelta).toBe(1_020_000n);

      // What the fee payer spent per sweep is exactly what the run reports: the network fee plus the seller's new ATA.
      for (const item of swept) {
        const effects = await transactionEffects(item.signature);
        expect(effects.err).toBeNull();
        expect(effects.feePayerSpent.toString()).toBe(item.lamportsSpent);
      }
      expect(byWallet(swept, jitSol).lamportsSpent).toBe("5000");
      // No seller token account is ever paid for: a USDC sweep costs the network fee, plus the operator's own fee token
      // account the first time one is missing (one per fee receiver and mint, which no seller can close).
      const splSpent = [sovereignItem, jitItem].map((i) => BigInt(i.lamportsSpent)).sort();
      expect(splSpent[0]).toBe(5_000n);
      expect([5_000n, 5_000n + 2_039_280n]).toContain(splSpent[1]);
      // Below-threshold rails cost nothing.
      for (const item of items.filter((i) => i.status === "skipped")) expect(item.lamportsSpent).toBe("0");
      expect(BigInt(first.body.lamportsSpent) + BigInt(second.body.lamportsSpent)).toBe(
        swept.reduce((s, i) => s + BigInt(i.lamportsSpent), 0n),
      );
    },
  );

  it("a second run inside the cooldown does nothing", async () => {
    const again = await sweep({});
    expect(again.body).toMatchObject({ dryRun: false, scanned: 0, attempted: 0, items: [] });
    const cron = await call("/sweep-cron", { headers: BEARER });
    expect(cron.status).toBe(200);
    expect(cron.body.scanned).toBe(0);
  });

  it("the Cron Trigger runs the same engine with database-first parameters, and /health shows the run", async () => {
    await paySeller(USDC, "1000000", sovereign.wallet);
    // A sweep of "everything" built on the blockhash of an earlier sweep of the same rail is the same transaction
    // (AlreadyProcessed: nothing new moves). Production cooldowns (300 s) outlast a blockhash; with the cooldown at 0
    // below, wait for the next blockhash so this run's sweep is a transaction of its own.
    await nextBlockhash();
    // A D1 parameter overrides the environment (docs/facilitator-spec.md §8): no cooldown, so the rail paid again is a
    // candidate.
    await env.DB.prepare(
      "INSERT INTO parameters (key, value, updated_at_ms) VALUES ('SVC_SWEEP_CRON_COOLDOWN_SEC', '0', 0)",
    ).run();
    clearConfigCache();
    try {
      const outcome = await runScheduled(RAILS, RAIL_JOBS_CRON, env as unknown as Env);
      expect(outcome).toEqual({
        job: "sweep+escrow-keeper+upto-keeper",
        ran: true,
        results: [
          { name: "sweep", ok: true },
          { name: "escrow-keeper", ok: true },
          { name: "upto-keeper", ok: true },
        ],
      });
    } finally {
      await env.DB.prepare("DELETE FROM parameters WHERE key = 'SVC_SWEEP_CRON_COOLDOWN_SEC'").run();
      clearConfigCache();
    }
    // 90 bps of 1 USDC is 9,000, below the program's 10,000 minimum fee: the minimum applies.
    expect(await tokenBalance(await usdcAta(sovereign.wallet))).toBe(4_955_000n + 990_000n);
    const run = await env.DB.prepare("SELECT * FROM sweep_runs ORDER BY id DESC LIMIT 1").first<any>();
    expect(run).toMatchObject({ trigger: "cron", outcome: "ok" });
    expect(run.succeeded).toBeGreaterThanOrEqual(1);
    const health = await call("/health");
    expect(health.body.lastSweepRun).toMatchObject({ trigger: "cron", outcome: "ok", succeeded: run.succeeded });
    expect(health.body.settlementKeeper.jobs.sweep).toMatchObject({
      trigger: "cron",
      outcome: "ok",
      lamportsSpent: run.lamports_spent,
    });
    expect(health.body.settlementKeeper.jobs["escrow-keeper"]).toMatchObject({ trigger: "cron", outcome: "ok" });
  });

  it("/vault-snapshot reads the vault's SOL and token balances", async () => {
    const snapshot = await call(`/vault-snapshot?wallet=${smallUsdc.wallet}&spl_mint=${USDC}`);
    expect(snapshot.status, JSON.stringify(snapshot.body)).toBe(200);
    expect(snapshot.body).toMatchObject({
      seller: smallUsdc.wallet,
      splitVaultPda: smallUsdc.vault,
      vaultExists: true,
      // pr402's VaultSnapshotResponse: integers; the decimal strings ride along for JavaScript clients.
      spendableLamports: 0,
      spendableLamportsDecimal: "0",
      vaultSplAta: await usdcAta(smallUsdc.vault),
      splAmountRaw: 50000,
      splAmountRawDecimal: "50000",
      splDecimals: 6,
      splBalanceScope: "vault_ata",
    });
    const sol = await call(`/vault-snapshot?wallet=${smallSol.wallet}`);
    expect(sol.body).toMatchObject({
      spendableLamports: 10000000,
      spendableLamportsDecimal: "10000000",
      vaultSplAta: null,
      splAmountRaw: 0,
    });
    expect((await call("/vault-snapshot?wallet=not-a-wallet")).status).toBe(400);
  });
});

describe("sweeps: the fee payer's exposure budget (src/chain/fee-payer-budget/)", () => {
  it(
    "a run's fees are booked on the sweep rail before any is signed: past SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS " +
      "each rail is skipped with the cap's reason and nothing is sent; within it the fees are booked",
    async () => {
      const seller = await paySeller(USDC, "5000000", await sovereignSeller());
      await createUsdcAccount(seller.wallet, await fundedBuyer(0));
      const run = (extraEnv: Record<string, string>) =>
        callWithEnv(extraEnv, "/sweep", {
          method: "POST",
          headers: { ...BEARER, "Content-Type": "application/json" },
          body: JSON.stringify({ cooldownSeconds: 0 }),
        });
      const capped = await run({ SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: "4999" });
      expect(capped.status, JSON.stringify(capped.body)).toBe(200);
      const item = capped.body.items.find((i: any) => i.wallet === seller.wallet);
      expect(item).toMatchObject({
        status: "skipped",
        action: "fee_payer_spend_per_day_exceeded",
        signature: null,
        lamportsSpent: "0",
      });
      expect(item.error).toMatch(/SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: 4999/);
      expect(await tokenBalance(await usdcAta(seller.vault))).toBe(5_000_000n);
      expect(capped.body.lamportsSpent).toBe("0");

      const bookedBefore = await env.DB.prepare(
        "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE rail = 'sweep' AND kind = " +
          "'network_fee' " +
          "AND state = 'spent'",
      ).first<{ n: number }>();
      const swept = await run({});
      const done = swept.body.items.find((i: any) => i.wallet === seller.wallet);
      expect(done).toMatchObject({ status: "ok", action: "sweep_submitted" });
      const bookedAfter = await env.DB.prepare(
        "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE rail = 'sweep' AND kind = " +
          "'network_fee' " +
          "AND state = 'spent'",
      ).first<{ n: number }>();
      // Exactly the fees of the sweeps this run sent (a preflight refusal would have been trimmed off).
      const sent = swept.body.items.filter((i: any) => i.signature !== null).length;
      expect(bookedAfter!.n - bookedBefore!.n).toBe(sent * 5_000);
    },
  );
});
