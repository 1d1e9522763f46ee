import { describe, expect, it } from "vitest";
import { feeLine, sweepFeeRate } from "../../../src/page/browser/fee-lines";
import type { KnownAsset } from "../../../src/page/browser/known-assets";

/** The home page's fee sentence per scheme, from the kind /supported lists (the local chain's values). */
const ASSETS: KnownAsset[] = [
  { mint: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", symbol: "USDC", decimals: 6, native: false },
  { mint: "11111111111111111111111111111111", symbol: "SOL", decimals: 9, native: true },
];
const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

describe("feeLine", () => {
  it(
    "exact: the rate of each sweep with the program's floor in the asset's units, and where the floor outweighs the " +
      "rate",
    () => {
      const line = feeLine(
        {
          scheme: "exact",
          network: NETWORK,
          extra: { feeBps: "100", sovereignFeeBps: "90", minFeeAmount: "10000", minFeeAmountSol: "100000" },
        },
        ASSETS,
      );
      expect(line).toBe(
        "paid instantly into the seller's vault; fee 1% of each sweep to the seller, at least 0.01 USDC per sweep " +
          "(0.0001 SOL for SOL): " +
          "a sweep below 1 USDC pays more than 1%; 0.9% for sellers who activate their own vault; the facilitator " +
          "pays " +
          "the network fee; " +
          "the smallest payment is 0.01 USDC, smaller prices are refused",
      );
      // The console's tier line says the rate the same way: of each sweep, never "of each payment".
      expect(sweepFeeRate("90")).toBe("0.9% of each sweep");
      // Another program configuration gives another sentence: the numbers are read, not written in.
      expect(
        feeLine({ scheme: "exact", network: NETWORK, extra: { feeBps: "250", minFeeAmount: "50000" } }, ASSETS),
      ).toMatch(
        new RegExp(
          String.raw`^paid instantly into the seller's vault; fee 2\.5% of each sweep to the seller, ` +
            String.raw`at least 0\.05 USDC per sweep: a sweep below 2 USDC pays more than 2\.5%; ` +
            "a lower rate for sellers who activate their own vault;",
        ),
      );
    },
  );

  it("sla-escrow: the escrow's rate and floor on release, and the oracle's tip", () => {
    const line = feeLine(
      { scheme: "sla-escrow", network: NETWORK, extra: { feeBps: "100", oracleFeeBps: "100", minFeeAmount: "100000" } },
      ASSETS,
    );
    expect(line).toBe(
      "held in escrow until delivery; fee 1% of the price on release, at least 0.1 USDC: a price below 10 USDC pays " +
        "more than 1%; " +
        "oracle tip 1% when an oracle gives a verdict; the buyer pays the network fee",
    );
    // A facilitator that does not publish the floor: the rate alone, never a made-up floor.
    expect(
      feeLine({ scheme: "sla-escrow", network: NETWORK, extra: { feeBps: "50", oracleFeeBps: "25" } }, ASSETS),
    ).toBe(
      "held in escrow until delivery; fee 0.5% of the price on release; oracle tip 0.25% when an oracle gives a " +
        "verdict; the buyer pays the network fee",
    );
  });

  it("upto: no fee, the whole claimed amount to the seller's wallet (no NaN, no undefined)", () => {
    const line = feeLine(
      {
        scheme: "upto",
        network: NETWORK,
        extra: { feePayer: "x", programId: "CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX", minWithdrawDelay: "60" },
      },
      ASSETS,
    );
    expect(line).toBe(
      "pay per use through a payment channel: the buyer deposits a ceiling, the seller claims what the request used " +
        "and the rest returns to the buyer; " +
        "no fee: the whole claimed amount goes to the seller's wallet; the facilitator pays the network fees and " +
        "fronts the channel's rent until it closes",
    );
  });

  it(
    "says what it does not know instead of NaN or undefined: a kind without fee parameters, a scheme it has no rule " +
      "for, assets not loaded",
    () => {
      expect(feeLine({ scheme: "exact", network: NETWORK, extra: {} }, ASSETS)).toMatch(
        /^paid instantly into the seller's vault; fee unknown \(ask GET \/api\/v1\/facilitator\/fee-quote\);/,
      );
      expect(feeLine({ scheme: "sla-escrow", network: NETWORK, extra: null }, ASSETS)).toMatch(
        /fee unknown .*oracle tip unknown when/,
      );
      expect(feeLine({ scheme: "future-rail", network: NETWORK, extra: { feeBps: "1" } }, ASSETS)).toBe(
        "fees: ask GET /api/v1/facilitator/fee-quote for this scheme",
      );
      expect(
        feeLine({ scheme: "exact", network: NETWORK, extra: { feeBps: "100", minFeeAmount: "10000" } }, []),
      ).toMatch(
        /at least 10000 base units of USDC per sweep: a sweep below 1000000 base units of USDC pays more than 1%/,
      );
      for (const scheme of ["exact", "sla-escrow", "upto", "other"]) {
        for (const extra of [{}, null, { feeBps: "x", minFeeAmount: "-1", oracleFeeBps: null }])
          expect(feeLine({ scheme, network: NETWORK, extra }, ASSETS)).not.toMatch(/NaN|undefined/);
      }
    },
  );
});
