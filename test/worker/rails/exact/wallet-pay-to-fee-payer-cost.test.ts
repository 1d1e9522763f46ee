/**
 * What an exact payment to a wallet `payTo` costs the fee payer (docs/money-rules.md, "the wallet payTo form"): its
 * network fee and nothing else — no rent (the seller's token account must exist; it is never created) — and that fee,
 * every lamport of it, is booked as every exact payment's is (`payment_fee`, buyer and seller). Measured from the fee
 * payer's balance and the chain's own transaction record. Real: workerd, local D1, the local chain.
 */
import { env } from "cloudflare:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { chainRpc, fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { createUsdcAccount, DEVNET, signAsBuyer, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";

type Facilitator = Awaited<ReturnType<typeof isolatedFacilitator>>;

async function sellerWithTokenAccount(): Promise<Address> {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  await createUsdcAccount(seller.address, seller);
  return seller.address;
}

/**
 * Pays `seller`'s own wallet through the facilitator; what the fee payer lost, the fee the chain recorded, the
 * bookings.
 */
async function payWallet(f: Facilitator, seller: Address) {
  const buyer = await fundedBuyer(5_000_000);
  const line = {
    scheme: "exact",
    network: DEVNET,
    payTo: seller,
    asset: USDC,
    amount: "250000",
    maxTimeoutSeconds: 60,
    extra: { feePayer: f.feePayer },
  };
  const built = await f.post("/build-exact-payment-tx", { payer: buyer.address, accepted: line });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  const body = built.body.verifyBodyTemplate;
  body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
  const before = await lamportsOf(f.feePayer);
  const settled = await f.post("/settle", body);
  expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
  const record = await chainRpc<{ meta: { fee: number } }>("getTransaction", [
    settled.body.transaction,
    { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  const bookings = await env.DB.prepare(
    "SELECT kind, pay_to AS payTo, lamports FROM fee_payer_exposure WHERE payer = ?",
  )
    .bind(buyer.address)
    .all();
  return { spent: before - (await lamportsOf(f.feePayer)), fee: BigInt(record.meta.fee), bookings: bookings.results };
}

describe("an exact payment to a wallet payTo costs the fee payer its network fee and nothing more", () => {
  it(
    "at the recommended price: the base fee of its two signatures and nothing else, booked to the " + "lamport",
    async () => {
      const f = await isolatedFacilitator("wallet-cost");
      const seller = await sellerWithTokenAccount();
      const sellerAccount = await usdcAccountOf(seller);
      const { spent, fee, bookings } = await payWallet(f, seller);
      expect(fee).toBeLessThanOrEqual(10_001n); // 2 × 5,000 + the recommended 1 micro-lamport × the builder's units
      expect(spent).toBe(fee);
      expect(bookings).toEqual([{ kind: "payment_fee", payTo: seller, lamports: Number(fee) }]);
      expect(await tokenBalance(sellerAccount)).toBe(250_000n);
    },
  );

  it(
    "with a priority fee: the whole fee booked for the buyer and the seller's wallet, as on the vault form, and " +
      "still nothing beyond the fee",
    async () => {
      // 500,000 micro-lamports × the builder's 20,000 units = 10,000 lamports on top of the base fee.
      const f = await isolatedFacilitator("wallet-cost-priority", {
        SVC_MAX_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: "500000",
        SVC_RECOMMENDED_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: "500000",
      });
      const seller = await sellerWithTokenAccount();
      const { spent, fee, bookings } = await payWallet(f, seller);
      expect(fee).toBe(20_000n);
      expect(spent).toBe(fee);
      expect(bookings).toEqual([{ kind: "payment_fee", payTo: seller, lamports: 20_000 }]);
    },
  );
});
