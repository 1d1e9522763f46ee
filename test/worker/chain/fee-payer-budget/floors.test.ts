import { env } from "cloudflare:test";
import { address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { chainRpc, fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import {
  activatedSeller,
  createUsdcAccount,
  enrichedLine,
  signedPaymentBody,
  USDC,
  usdcAccountOf,
} from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * Issue 20 §3 against the real local chain and D1: /health reports the fee payer's balance and the jobs' last runs;
 * below SVC_FEE_PAYER_MIN_LAMPORTS the optional spenders stop with a reason; below SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS
 * settles answer 503. The floors are raised above the fee payer's real balance (100 SOL) instead of draining it.
 */

const ABOVE_ANY_BALANCE = "1000000000000000000";
const LOW = { SVC_FEE_PAYER_MIN_LAMPORTS: ABOVE_ANY_BALANCE };
const BELOW_FLOOR = {
  SVC_FEE_PAYER_MIN_LAMPORTS: ABOVE_ANY_BALANCE,
  SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS: ABOVE_ANY_BALANCE,
};
const BEARER = { Authorization: "Bearer test-operator-token", "Content-Type": "application/json" };
const post = (
  json: unknown,
  headers: Record<string, string> = { "Content-Type": "application/json" },
): RequestInit => ({ method: "POST", headers, body: JSON.stringify(json) });

async function jobRun(job: string) {
  return env.DB.prepare("SELECT trigger, outcome, lamports_spent AS lamportsSpent, detail FROM job_runs WHERE job = ?")
    .bind(job)
    .first<any>();
}

describe("/health: the fee payer's balance", () => {
  it("reports the balance against both floors, and says degraded below the minimum", async () => {
    const ok = await callWithEnv({}, "/health");
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe("ok");
    expect(ok.body.feePayerBalance).toMatchObject({
      minLamports: "100000000",
      settleFloorLamports: "10000000",
      state: "ok",
    });
    const onChain = await lamportsOf(address(TEST_FEE_PAYER.address));
    // Other test files spend from the same fee payer meanwhile: the reported balance is a recent one, never made up.
    expect(BigInt(ok.body.feePayerBalance.lamports)).toBeGreaterThan(onChain - 1_000_000_000n);
    expect(BigInt(ok.body.feePayerBalance.lamports)).toBeLessThanOrEqual(onChain + 1_000_000_000n);
    expect(ok.body.solanaSlot).toBeGreaterThan(0);

    const low = await callWithEnv(LOW, "/health");
    expect(low.body).toMatchObject({
      status: "degraded",
      solanaRpc: "connected",
      feePayerBalance: { state: "below_minimum", minLamports: ABOVE_ANY_BALANCE },
    });
    const belowFloor = await callWithEnv(BELOW_FLOOR, "/health");
    expect(belowFloor.body).toMatchObject({ status: "degraded", feePayerBalance: { state: "below_settle_floor" } });
  });

  it("refuses a settle floor above the minimum (500 naming the key)", async () => {
    const bad = await callWithEnv({ SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS: "200000000" }, "/health");
    expect(bad.status).toBe(500);
    expect(bad.body.error).toMatch(/SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS must not exceed SVC_FEE_PAYER_MIN_LAMPORTS/);
  });
});

describe("below SVC_FEE_PAYER_MIN_LAMPORTS the optional spenders stop", () => {
  it(
    "sweeps send nothing, each eligible rail says why, and the run is recorded as paused; above it they " + "resume",
    async () => {
      const seller = await activatedSeller(USDC);
      await createUsdcAccount(seller, await fundedBuyer(0));
      const buyer = await fundedBuyer(5_000_000);
      const settled = await call("/settle", {
        method: "POST",
        json: await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000", seller)),
      });
      expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);

      const paused = await callWithEnv(LOW, "/sweep", post({ cooldownSeconds: 0 }, BEARER));
      expect(paused.status, JSON.stringify(paused.body)).toBe(200);
      expect(paused.body.paused).toMatchObject({ reason: "fee_payer_below_minimum" });
      const item = paused.body.items.find((i: any) => i.wallet === seller);
      expect(item).toMatchObject({
        status: "skipped",
        action: "fee_payer_below_minimum",
        signature: null,
        lamportsSpent: "0",
      });
      expect(item.error).toMatch(/^fee_payer_below_minimum: .*SVC_FEE_PAYER_MIN_LAMPORTS/);
      expect(paused.body).toMatchObject({ attempted: 0, lamportsSpent: "0" });
      expect(await tokenBalance(await usdcAccountOf(seller))).toBe(0n);
      expect(await jobRun("sweep")).toMatchObject({
        trigger: "http",
        outcome: "paused",
        lamportsSpent: "0",
        detail: expect.stringMatching(/fee_payer_below_minimum/),
      });

      const resumed = await call("/sweep", { method: "POST", headers: BEARER, json: { cooldownSeconds: 0 } });
      expect(resumed.body.items.find((i: any) => i.wallet === seller)).toMatchObject({
        status: "ok",
        lamportsSpent: "5000",
      });
      expect(await tokenBalance(await usdcAccountOf(seller))).toBeGreaterThan(0n);
      const health = await call("/health");
      expect(health.body.settlementKeeper.jobs.sweep).toMatchObject({
        trigger: "http",
        outcome: "ok",
        lamportsSpent: "5000",
      });
    },
  );

  it("the escrow keeper pays out nothing and says why", async () => {
    const paused = await callWithEnv(LOW, "/escrow-keeper", post({}, BEARER));
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body).toMatchObject({
      dryRun: false,
      scanned: 0,
      items: [],
      paused: { reason: "fee_payer_below_minimum" },
    });
    expect(await jobRun("escrow-keeper")).toMatchObject({ outcome: "paused", lamportsSpent: "0" });
    // A dry run spends nothing, so it is not paused.
    const dry = await callWithEnv(LOW, "/escrow-keeper", post({ dryRun: true }, BEARER));
    expect(dry.body.paused).toBeUndefined();
  });

  it("no vault is fronted just in time, while a valid payment to an activated vault still settles", async () => {
    const newSeller = (await generateKeyPairSigner()).address;
    const buyer = await fundedBuyer(10_000_000);
    const line = await enrichedLine(USDC, "2000000", newSeller); // above the 1 USDC recovery target
    const refused = await callWithEnv(LOW, "/settle", post(await signedPaymentBody(buyer, line)));
    expect(refused.body).toMatchObject({ success: false, errorReason: "vault_not_provisioned" });
    expect(refused.body.errorMessage).toMatch(/fee_payer_below_minimum/);
    const vault = await chainRpc<any>("getAccountInfo", [line.payTo, { encoding: "base64" }]);
    expect(vault.value).toBeNull();

    const paid = await callWithEnv(
      LOW,
      "/settle",
      post(await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000"))),
    );
    expect(paid.body, JSON.stringify(paid.body)).toMatchObject({ success: true });
  });
});

describe("below SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS", () => {
  it(
    "a settle answers 503 with the reason and sends nothing; a payment already settled is still " + "answered",
    async () => {
      const buyer = await fundedBuyer(10_000_000);
      const already = await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000"));
      const sellerRetryKey = { "Content-Type": "application/json", "X-Correlation-ID": `floor-${crypto.randomUUID()}` };
      expect((await callWithEnv({}, "/settle", post(already, sellerRetryKey))).body.success).toBe(true);

      // The settle path reads no balance itself: it uses the isolate's last reading (here: /health's).
      await callWithEnv(BELOW_FLOOR, "/health");
      const body = await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000"));
      const buyerAta = await usdcAccountOf(buyer.address);
      const before = await tokenBalance(buyerAta);
      const history = async () =>
        (await chainRpc<unknown[]>("getSignaturesForAddress", [buyerAta, { limit: 1000 }])).length;
      const transactionsBefore = await history();
      const refused = await callWithEnv(BELOW_FLOOR, "/settle", post(body));
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "fee_payer_below_settle_floor",
        code: "SERVICE_UNAVAILABLE",
        transaction: "",
      });
      expect(refused.body.errorMessage).toMatch(/below its settle floor/);
      expect(await history()).toBe(transactionsBefore);
      expect(await tokenBalance(buyerAta)).toBe(before);

      // The first payment is in the ledger: the seller's retry is answered from it (success again), not refused.
      const retry = await callWithEnv(BELOW_FLOOR, "/settle", post(already, sellerRetryKey));
      expect(retry.body, JSON.stringify(retry.body)).toMatchObject({ success: true, alreadySettled: true });
    },
  );

  it(
    "counts the fees its own settles paid without reading the balance again: the next settle below the floor is " +
      "refused",
    async () => {
      const buyer = await fundedBuyer(10_000_000);
      // A settle acts on the isolate's last reading (here: /health's); the floor sits 1 lamport below it.
      const reading = BigInt((await callWithEnv({}, "/health")).body.feePayerBalance.lamports);
      const floorJustBelow = {
        SVC_FEE_PAYER_MIN_LAMPORTS: String(reading),
        SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS: String(reading - 1n),
      };
      const first = await callWithEnv(
        floorJustBelow,
        "/settle",
        post(await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000"))),
      );
      expect(first.body, JSON.stringify(first.body)).toMatchObject({ success: true });
      // That settle's network fee (two signatures at least) lowered the reading below the floor, with no new read.
      const second = await callWithEnv(
        floorJustBelow,
        "/settle",
        post(await signedPaymentBody(buyer, await enrichedLine(USDC, "1000000"))),
      );
      expect(second.status, JSON.stringify(second.body)).toBe(503);
      expect(second.body).toMatchObject({ success: false, errorReason: "fee_payer_below_settle_floor" });
      // Lowered by exactly what the cluster charged for the first settle.
      const landed = await chainRpc<{ meta: { fee: number } }>("getTransaction", [
        first.body.transaction,
        { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
      ]);
      expect(landed.meta.fee).toBeGreaterThanOrEqual(10_000);
      expect(second.body.errorMessage).toContain(`holds ${reading - BigInt(landed.meta.fee)} lamports`);
    },
  );
});
