import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { chainRpc } from "../../support/workerd/chain";
import { activatedSeller, DEVNET, USDC } from "../../support/workerd/payment-fixtures";
import { call } from "../../support/workerd/worker-http";

/** localnet/seed.ts values (that module is Node-only): UniversalSettle Config and the USDC Escrow. */
const US = { feeBps: 100, discountedFeeBps: 90, minFeeAmountRaw: 10_000n, provisioningFeeRaw: 1_000_000n };
const ESCROW_USDC = { feeBps: 100, minFeeAmount: 100_000n };

/**
 * GET /fee-quote against the seeded on-chain settings of the local chain (UniversalSettle Config, the USDC Escrow)
 * and real seller vaults: fee = min(max(floor(amount × bps / 10,000), minimum), amount).
 */
const quote = (query: Record<string, string>) => call(`/fee-quote?${new URLSearchParams(query)}`);

describe("GET /fee-quote", () => {
  it(
    "exact, seller not activated: standard rate, and the setup cost the facilitator would recover is " + "withheld",
    async () => {
      const wallet = (await generateKeyPairSigner()).address;
      const response = await quote({ wallet, asset: "USDC", amount: "3000000" });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const fee = (3_000_000n * BigInt(US.feeBps)) / 10_000n; // 30,000 > the 10,000 minimum
      const withheld = US.provisioningFeeRaw; // 1,000,000 still to recover, less than the net
      expect(response.body).toMatchObject({
        scheme: "exact",
        network: DEVNET,
        wallet,
        asset: "USDC",
        mint: USDC,
        tier: "not_activated",
        feeBps: US.feeBps,
        minFeeAmount: US.minFeeAmountRaw.toString(),
        protocolFee: fee.toString(),
        oracleFee: "0",
        provisioningRecoveryWithheld: withheld.toString(),
        sellerNets: (3_000_000n - fee - withheld).toString(),
      });
    },
  );

  it("exact, sovereign seller: the discounted rate, the minimum fee as a floor, nothing withheld", async () => {
    const wallet = await activatedSeller(USDC);
    const big = await quote({ wallet, asset: USDC, amount: "5000000" });
    expect(big.body).toMatchObject({
      tier: "sovereign",
      feeBps: US.discountedFeeBps,
      protocolFee: "45000",
      provisioningRecoveryWithheld: "0",
      sellerNets: "4955000",
    });
    const small = await quote({ wallet, asset: "USDC", amount: "500000" }); // 90 bps = 4,500 < the 10,000 minimum
    expect(small.body).toMatchObject({
      protocolFee: US.minFeeAmountRaw.toString(),
      sellerNets: (500_000n - US.minFeeAmountRaw).toString(),
    });
    // Below the minimum payment the seller would net nothing: refused with /verify's reason and the number.
    const tiny = await quote({ wallet, asset: "USDC", amount: "4000" });
    expect(tiny.status).toBe(400);
    expect(tiny.body).toMatchObject({
      reason: "invalid_exact_svm_payload_amount_below_minimum",
      minimumAmount: US.minFeeAmountRaw.toString(),
    });
  });

  it("sla-escrow: the escrow's fee with its 10-cent minimum, and the adjudicator's tip", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const response = await quote({ wallet, asset: "USDC", amount: "20000000", scheme: "sla-escrow" });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      scheme: "sla-escrow",
      feeBps: ESCROW_USDC.feeBps,
      minFeeAmount: ESCROW_USDC.minFeeAmount.toString(),
      protocolFee: "200000", // 100 bps of 20 USDC, above the 0.10 USDC minimum
      oracleFee: "200000", // 100 bps tip, no floor
      sellerNets: "19800000",
    });
    const small = await quote({ wallet, asset: "USDC", amount: "2000000", scheme: "sla-escrow" });
    expect(small.body).toMatchObject({ protocolFee: "100000", oracleFee: "20000", sellerNets: "1900000" });
  });

  it(
    "upto: no protocol fee, the seller nets the whole claim when its token account exists, nothing when it does " +
      "not",
    async () => {
      const wallet = (await generateKeyPairSigner()).address;
      const without = await quote({ wallet, asset: "USDC", amount: "512345", scheme: "upto" });
      expect(without.status, JSON.stringify(without.body)).toBe(200);
      expect(without.body).toMatchObject({
        scheme: "upto",
        tier: "channel",
        feeBps: 0,
        protocolFee: "0",
        oracleFee: "0",
        sellerNets: "0",
        rentFrontedLamports: "4711920",
      });
      expect(without.body.notes.join(" ")).toMatch(/treasury/);
      await chainRpc("requestTokenAirdrop", [wallet, 1]);
      const withAccount = await quote({ wallet, asset: "USDC", amount: "512345", scheme: "upto" });
      expect(withAccount.body).toMatchObject({
        scheme: "upto",
        mint: USDC,
        protocolFee: "0",
        provisioningRecoveryWithheld: "0",
        sellerNets: "512345",
      });
    },
  );

  it("answers a clear 400 for each bad input", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const cases: [Record<string, string>, RegExp][] = [
      [{ wallet, asset: "USDC", amount: "12.5" }, /amount/],
      [{ wallet, asset: "USDC", amount: "0" }, /amount: must be greater than 0/],
      // upto became a quoted rail (issue 24 §4): an unknown scheme still answers 400.
      [{ wallet, asset: "USDC", amount: "1", scheme: "deferred" }, /scheme/],
      [{ wallet, asset: "SOL", amount: "1", scheme: "upto" }, /native SOL is not an upto asset/],
      [{ wallet, asset: "DOGE", amount: "1" }, /asset/],
      [{ wallet: "not-a-wallet", asset: "USDC", amount: "1" }, /wallet/],
      [{ asset: "USDC", amount: "1" }, /wallet/],
    ];
    for (const [query, message] of cases) {
      const response = await quote(query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
  });
});
