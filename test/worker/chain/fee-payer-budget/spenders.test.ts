import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  SPL_TOKEN_ACCOUNT_RENT_LAMPORTS,
  SPLIT_VAULT_RENT_LAMPORTS,
  VAULT_SOL_STORAGE_RENT_LAMPORTS,
} from "../../../../src/chain/fee-payer-budget/caps";
import { readJobsSpent } from "../../../../src/store/fee-payer-exposure";
import { chainRpc, fundedBuyer, lamportsOf } from "../../../support/workerd/chain";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { USDC } from "../../../support/workerd/payment-fixtures";
import { uptoBody, uptoDeposit, uptoLine } from "../../../support/workerd/upto-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * Every lamport the fee payer puts out goes through the exposure budget (src/chain/fee-payer-budget/), on the real
 * local chain and D1: a payment's network fee (base and priority), just-in-time vaults, sponsored escrow fundings,
 * keeper and sweep fees, and the token accounts a payout could create.
 */

const JIT_RENT = SPLIT_VAULT_RENT_LAMPORTS + VAULT_SOL_STORAGE_RENT_LAMPORTS + SPL_TOKEN_ACCOUNT_RENT_LAMPORTS;

async function exposureRow(bookingId: string) {
  return env.DB.prepare(
    "SELECT rail, kind, payer, pay_to AS payTo, lamports, state, pool FROM fee_payer_exposure WHERE booking_id = ?",
  )
    .bind(bookingId)
    .first<Record<string, unknown>>();
}

async function accountExists(address: string): Promise<boolean> {
  return (await chainRpc<{ value: unknown }>("getAccountInfo", [address, { encoding: "base64" }])).value !== null;
}

describe("just-in-time vaults are booked before the fee payer signs their creation", () => {
  it(
    "the vault's rent is booked as spent in the operator's jobs' pool (buyer and seller recorded, not capped); past " +
      "that pool the next vault is refused with its own reason and nothing is sent",
    async () => {
      const jobsSpent = await readJobsSpent(env.DB, Date.now() - 86_400_000);
      const f = await isolatedFacilitator("jit-budget", {
        SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: String(jobsSpent + JIT_RENT + JIT_RENT / 2n),
      });
      const buyer = await fundedBuyer(5_000_000);
      const seller = (await generateKeyPairSigner()).address;
      const first = await f.line(USDC, "1000000", seller);
      const settled = await f.post("/settle", await f.signedBody(buyer, first));
      expect(settled.status, JSON.stringify(settled.body)).toBe(200);
      expect(await exposureRow(`jit_vault:${first.payTo}:${USDC}`)).toMatchObject({
        rail: "exact",
        kind: "rent_spent",
        payer: buyer.address,
        payTo: seller,
        lamports: Number(JIT_RENT),
        state: "spent",
        pool: "jobs",
      });

      const second = await f.line(USDC, "1000000", (await generateKeyPairSigner()).address);
      const body = await f.signedBody(buyer, second);
      const feePayerBefore = await lamportsOf(f.feePayer);
      const refused = await f.post("/settle", body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "fee_payer_spend_per_day_exceeded",
        transaction: "",
      });
      expect(refused.body.errorMessage).toMatch(/SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS/);
      expect(await accountExists(second.payTo)).toBe(false);
      expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
      expect(await exposureRow(`jit_vault:${second.payTo}:${USDC}`)).toBeNull();
      // The refused payment's own fee booking went with its ledger claim (the claim was given back).
      const fees = await env.DB.prepare(
        "SELECT state FROM fee_payer_exposure WHERE payer = ? AND kind = 'payment_fee' ORDER BY booked_at_ms",
      )
        .bind(buyer.address)
        .all<{ state: string }>();
      expect(fees.results.map((r) => r.state)).toEqual(["spent", "voided"]);

      // /health shows it by rail (the D1 of this test file is shared: at least this vault's rent).
      const health = (await callWithEnv(f.env, "/health")).body.feePayerExposure;
      expect(BigInt(health.spentLast24hLamports.byRail.exact)).toBeGreaterThanOrEqual(JIT_RENT);
    },
  );
});

describe("every lamport of a payment's network fee is booked, in its ledger claim, before it is sent", () => {
  it(
    "an exact payment whose unit price makes the fee payer pay 10,000 lamports of priority fee books its whole fee " +
      "(base and priority) for the buyer and seller; past the buyer's daily cap the next one is refused and nothing " +
      "is sent",
    async () => {
      // 500,000 micro-lamports × the builder's 20,000 units = 10,000 lamports on top of the 10,000 base fee.
      const f = await isolatedFacilitator("priority-budget", {
        SVC_MAX_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: "500000",
        SVC_RECOMMENDED_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: "500000",
        SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS: "35000",
      });
      const buyer = await fundedBuyer(5_000_000);
      const first = await f.post("/settle", await f.signedBody(buyer, await f.line(USDC, "1000000")));
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const booked = await env.DB.prepare(
        "SELECT rail, kind, pay_to AS payTo, lamports, state, pool FROM fee_payer_exposure WHERE payer = ?",
      )
        .bind(buyer.address)
        .all();
      expect(booked.results).toEqual([
        expect.objectContaining({
          rail: "exact",
          kind: "payment_fee",
          lamports: 20_000,
          state: "spent",
          pool: "buyers",
        }),
      ]);

      const body = await f.signedBody(buyer, await f.line(USDC, "1000000"));
      // /verify says what the settle would (a priority fee this large is looked at).
      expect((await f.post("/verify", body)).body).toMatchObject({
        isValid: false,
        invalidReason: "fee_payer_spend_per_payer_exceeded",
      });
      const feePayerBefore = await lamportsOf(f.feePayer);
      const refused = await f.post("/settle", body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "fee_payer_spend_per_payer_exceeded",
        transaction: "",
      });
      expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
      // The refused payment is not in the ledger: the buyer may send it again once the day rolls over.
      const ledger = await env.DB.prepare("SELECT COUNT(*) AS n FROM settlements WHERE payer = ?")
        .bind(buyer.address)
        .first<{ n: number }>();
      expect(ledger?.n).toBe(1);
    },
  );

  it(
    "the recommended unit price: its whole fee is booked too, the base fee of its two signatures and its 1-lamport " +
      "priority fee",
    async () => {
      const f = await isolatedFacilitator("priority-none");
      const buyer = await fundedBuyer(5_000_000);
      const settled = await f.post("/settle", await f.signedBody(buyer, await f.line(USDC, "1000000")));
      expect(settled.body).toMatchObject({ success: true });
      const record = await chainRpc<{ meta: { fee: number } }>("getTransaction", [
        settled.body.transaction,
        { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
      ]);
      const rows = await env.DB.prepare("SELECT kind, lamports, state FROM fee_payer_exposure WHERE payer = ?")
        .bind(buyer.address)
        .all();
      expect(rows.results).toEqual([{ kind: "payment_fee", lamports: record.meta.fee, state: "spent" }]);
    },
  );
});

describe("a stuck upto channel still holds the fee payer's rent", () => {
  it(
    "a channel the keeper gave up on counts against its buyer's caps (on /verify as on /settle) and in /health's " +
      "rent out",
    async () => {
      const f = await isolatedFacilitator("stuck-counted", { SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: "1" });
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const rentBefore = BigInt(
        (await callWithEnv(f.env, "/health")).body.feePayerExposure.rentOutLamports.byRail.upto ?? "0",
      );
      // The keeper gave this buyer's earlier channel up (e.g. its escrow token account was frozen): the row is stuck.
      const stuck = `stuck-${crypto.randomUUID()}`;
      await env.DB.prepare(
        `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, ` +
          `token_program, deposit, expires_at,
         state, next_check_at_ms, created_at_ms, updated_at_ms, rent_lamports)
       VALUES (?1, ?1, 'bh', ?2, 'payTo', 'asset', 'tp', '1', 0, 'stuck', 0, 0, 0, 4711920)`,
      )
        .bind(stuck, buyer.address)
        .run();
      const rentAfter = BigInt((await callWithEnv(f.env, "/health")).body.feePayerExposure.rentOutLamports.byRail.upto);
      expect(rentAfter - rentBefore).toBe(4_711_920n);

      const line = await uptoLine({ feePayer: f.feePayer, authorizer: authorizer.address, amount: "1000000" });
      const payload = await uptoDeposit(buyer, line);
      // /verify says what the settle would: the buyer's stuck channel fills its cap.
      const verified = await f.post("/verify", uptoBody(line, payload));
      expect(verified.body, JSON.stringify(verified.body)).toMatchObject({
        isValid: false,
        invalidReason: "upto_open_channels_per_payer_exceeded",
      });
      const refused = await f.post("/settle", uptoBody(line, { ...payload, type: "deposit" }));
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body).toMatchObject({ success: false, errorReason: "upto_open_channels_per_payer_exceeded" });
      await env.DB.prepare("DELETE FROM upto_channels WHERE channel_id = ?").bind(stuck).run();
    },
  );
});
