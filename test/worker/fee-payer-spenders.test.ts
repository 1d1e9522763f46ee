import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { SPL_TOKEN_ACCOUNT_RENT_LAMPORTS, SPLIT_VAULT_RENT_LAMPORTS, VAULT_SOL_STORAGE_RENT_LAMPORTS } from "../../src/fee-payer-budget/caps";
import { isolatedFacilitator } from "../support/workerd/isolated-facilitator";
import { USDC } from "../support/workerd/payment-fixtures";
import { chainRpc, fundedBuyer, lamportsOf } from "../support/workerd/chain";
import { callWithEnv } from "../support/workerd/worker-http";

/**
 * Every lamport the fee payer fronts beyond a seller's network fee goes through the exposure budget
 * (src/fee-payer-budget/), on the real local chain and D1: just-in-time vaults, priority fees, sponsored escrow
 * fundings, keeper and sweep fees, and the token accounts a payout could create.
 */

const JIT_RENT = SPLIT_VAULT_RENT_LAMPORTS + VAULT_SOL_STORAGE_RENT_LAMPORTS + SPL_TOKEN_ACCOUNT_RENT_LAMPORTS;

async function exposureRow(bookingId: string) {
  return env.DB.prepare("SELECT rail, kind, payer, pay_to AS payTo, lamports, state FROM fee_payer_exposure WHERE booking_id = ?").bind(bookingId).first<Record<string, unknown>>();
}

async function accountExists(address: string): Promise<boolean> {
  return (await chainRpc<{ value: unknown }>("getAccountInfo", [address, { encoding: "base64" }])).value !== null;
}

describe("just-in-time vaults are booked before the fee payer signs their creation", () => {
  it("the vault's rent is booked as spent for the buyer and the seller; past the buyer's daily cap the next vault is refused with its own reason and nothing is sent", async () => {
    const f = await isolatedFacilitator("jit-budget", { SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS: String(JIT_RENT + JIT_RENT / 2n) });
    const buyer = await fundedBuyer(5_000_000);
    const seller = (await generateKeyPairSigner()).address;
    const first = await f.line(USDC, "1000000", seller);
    const settled = await f.post("/settle", await f.signedBody(buyer, first));
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(await exposureRow(`jit_vault:${first.payTo}:${USDC}`)).toMatchObject({ rail: "exact", kind: "rent_spent", payer: buyer.address, payTo: seller, lamports: Number(JIT_RENT), state: "spent" });

    const second = await f.line(USDC, "1000000", (await generateKeyPairSigner()).address);
    const body = await f.signedBody(buyer, second);
    const feePayerBefore = await lamportsOf(f.feePayer);
    const refused = await f.post("/settle", body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body).toMatchObject({ success: false, errorReason: "fee_payer_spend_per_payer_exceeded", transaction: "" });
    expect(refused.body.errorMessage).toMatch(/SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS/);
    expect(await accountExists(second.payTo)).toBe(false);
    expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
    expect(await exposureRow(`jit_vault:${second.payTo}:${USDC}`)).toBeNull();

    // /health shows it by rail (the D1 of this test file is shared: at least this vault's rent).
    const health = (await callWithEnv(f.env, "/health")).body.feePayerExposure;
    expect(BigInt(health.spentLast24hLamports.byRail.exact)).toBeGreaterThanOrEqual(JIT_RENT);
  });
});
