/**
 * /verify of an exact payment whose vault the facilitator would have to create first answers what /settle's
 * just-in-time provisioning would (src/rails/exact/just-in-time-refusal.ts; docs/money-rules.md): the payment worth a
 * vault, the fee payer above its minimum, today's provisioning cap, and the vault's rent within the exposure budget's
 * caps — and, being read only, books and claims nothing. Real: workerd, local D1, the local chain.
 */
import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  SPL_TOKEN_ACCOUNT_RENT_LAMPORTS,
  SPLIT_VAULT_RENT_LAMPORTS,
  VAULT_SOL_STORAGE_RENT_LAMPORTS,
} from "../../../../src/chain/fee-payer-budget/caps";
import { readJobsSpent } from "../../../../src/store/fee-payer-exposure";
import { fundedBuyer, lamportsOf } from "../../../support/workerd/chain";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { USDC } from "../../../support/workerd/payment-fixtures";

const JIT_RENT = SPLIT_VAULT_RENT_LAMPORTS + VAULT_SOL_STORAGE_RENT_LAMPORTS + SPL_TOKEN_ACCOUNT_RENT_LAMPORTS;
/** At least the stand-in program's provisioning recovery target (1 USDC), so a vault is worth fronting. */
const WORTH_A_VAULT = "1000000";

const newSeller = async () => (await generateKeyPairSigner()).address;

/** What a verify must never leave behind: a booking of the vault's rent, or a provisioning claim. */
async function traces(vault: string, seller: string) {
  const [booking, claim] = await Promise.all([
    env.DB.prepare("SELECT state FROM fee_payer_exposure WHERE booking_id = ?")
      .bind(`jit_vault:${vault}:${USDC}`)
      .first(),
    env.DB.prepare("SELECT 1 FROM jit_provisions WHERE seller_wallet = ?").bind(seller).first(),
  ]);
  return { booking, claim };
}

describe("/verify answers the just-in-time provisioning's refusals, as /settle does, and books nothing", () => {
  it("past the operator's jobs' daily pool (a second vault's rent), whatever the buyer's own cap", async () => {
    // The jobs' pool leaves room for one vault more than this file's tests booked on it so far; the buyer's own cap is
    // far below a vault's rent, and refuses nothing: a vault is the operator's job, not the buyer's spend.
    const jobsSpent = await readJobsSpent(env.DB, Date.now() - 86_400_000);
    const f = await isolatedFacilitator("jit-verify-spend", {
      SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: String(jobsSpent + JIT_RENT + JIT_RENT / 2n),
      SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS: "100000",
    });
    const buyer = await fundedBuyer(5_000_000);
    const firstSeller = await newSeller();
    const first = await f.signedBody(buyer, await f.line(USDC, WORTH_A_VAULT, firstSeller));
    expect((await f.post("/verify", first)).body).toMatchObject({ isValid: true });
    expect(await traces(first.paymentRequirements.payTo, firstSeller)).toEqual({ booking: null, claim: null });
    expect((await f.post("/settle", first)).body).toMatchObject({ success: true });

    const secondSeller = await newSeller();
    const second = await f.signedBody(buyer, await f.line(USDC, WORTH_A_VAULT, secondSeller));
    const verified = await f.post("/verify", second);
    expect(verified.body).toMatchObject({
      isValid: false,
      invalidReason: "fee_payer_spend_per_day_exceeded",
      payer: buyer.address,
    });
    expect(verified.body.invalidMessage).toMatch(/SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS/);
    expect(await traces(second.paymentRequirements.payTo, secondSeller)).toEqual({ booking: null, claim: null });

    const feePayerBefore = await lamportsOf(f.feePayer);
    const settled = await f.post("/settle", second);
    expect(settled.body).toMatchObject({ success: false, errorReason: "fee_payer_spend_per_day_exceeded" });
    expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
  });

  it("when fronting the rent would take the fee payer below SVC_FEE_PAYER_MIN_LAMPORTS", async () => {
    // 0.2 SOL held, a minimum 1,000,000 lamports below it: not paused, but a vault's ~0.0043 SOL would cross it.
    const f = await isolatedFacilitator("jit-verify-minimum", { SVC_FEE_PAYER_MIN_LAMPORTS: "199000000" }, 200_000_000);
    const buyer = await fundedBuyer(5_000_000);
    const seller = await newSeller();
    const body = await f.signedBody(buyer, await f.line(USDC, WORTH_A_VAULT, seller));
    const verified = await f.post("/verify", body);
    expect(verified.body).toMatchObject({ isValid: false, invalidReason: "fee_payer_below_minimum" });
    expect(await traces(body.paymentRequirements.payTo, seller)).toEqual({ booking: null, claim: null });
    expect((await f.post("/settle", body)).body).toMatchObject({
      success: false,
      errorReason: "fee_payer_below_minimum",
    });
  });

  it(
    "when the fee payer is below its minimum (provisioning paused), today's cap is used, or the payment is below " +
      "the vault's worth",
    async () => {
      const buyer = await fundedBuyer(5_000_000);
      const cases: {
        label: string;
        env: Record<string, unknown>;
        feePayerLamports?: number;
        amount: string;
        message: RegExp;
      }[] = [
        {
          label: "paused",
          env: { SVC_FEE_PAYER_MIN_LAMPORTS: "6000000000" },
          amount: WORTH_A_VAULT,
          message: /paused \(fee_payer_below_minimum/,
        },
        {
          label: "cap",
          env: { SVC_JIT_PROVISIONING_DAILY_CAP: "0" },
          amount: WORTH_A_VAULT,
          message: /today's just-in-time provisioning budget is used/,
        },
        {
          label: "worth",
          env: {},
          amount: "500000",
          message: /fronts a vault only for a payment of at least 1000000 raw units/,
        },
      ];
      for (const c of cases) {
        const f = await isolatedFacilitator(`jit-verify-${c.label}`, c.env);
        const seller = await newSeller();
        const body = await f.signedBody(buyer, await f.line(USDC, c.amount, seller));
        const verified = await f.post("/verify", body);
        expect(verified.body, c.label).toMatchObject({ isValid: false, invalidReason: "vault_not_provisioned" });
        expect(verified.body.invalidMessage, c.label).toMatch(c.message);
        expect(await traces(body.paymentRequirements.payTo, seller), c.label).toEqual({ booking: null, claim: null });
        const settled = await f.post("/settle", body);
        expect(settled.body, c.label).toMatchObject({ success: false, errorReason: "vault_not_provisioned" });
        expect(settled.body.errorMessage, c.label).toBe(verified.body.invalidMessage);
      }
    },
  );
});
