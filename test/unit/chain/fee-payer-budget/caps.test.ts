import { describe, expect, it } from "vitest";
import {
  belowMinimumRefusal,
  exposureCapRefusal,
  heldLimits,
  paymentFeeLimits,
  paymentFeeRefusal,
  spentLimits,
  totalRentLimitLamports,
} from "../../../../src/chain/fee-payer-budget/caps";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../../../src/chain/token-programs";
import { rejectionForTransactionError } from "../../../../src/chain/transaction-rejection";
import type { Config, FeePayerBudgetCaps } from "../../../../src/platform/config/load-config";
import { uptoCapRefusal, uptoOpenLimits, uptoOpenRentLamports } from "../../../../src/rails/upto/channel-rent-caps";
import type { ChannelOpenCaps } from "../../../../src/rails/upto/config";
import type { PaymentFeeFigures } from "../../../../src/store/payment-fee-booking";

/**
 * The exposure budget's pure rules (src/chain/fee-payer-budget/caps.ts, the upto rail's channel caps in
 * src/rails/upto/channel-rent-caps.ts): which cap a booking would pass and how the
 * refusal reads. The SQL that applies the same caps atomically is exercised against real D1 in
 * test/worker/chain/fee-payer-budget/upto-open-bookings.test.ts.
 */
const CAPS: FeePayerBudgetCaps = {
  rentPerPayerLamports: 50_000_000n,
  rentPerPayToLamports: 500_000_000n,
  rentShareBps: 5_000,
  spendPerDayLamports: 1_000_000_000n,
  buyerSpendPerDayLamports: 1_000_000_000n,
  spendPerPayerPerDayLamports: 30_000_000n,
  spendPerPayToPerDayLamports: 50_000_000n,
  provenSellerSpendPerDayLamports: 500_000_000n,
  provenSellersSpendPerDayLamports: 2_000_000_000n,
  failuresPerPayerPerDay: 3,
};
const OPEN_CAPS: ChannelOpenCaps = { channelsPerPayer: 10, channelsPerPayTo: 100, opensPerPayerPerHour: 30 };
const RENT = uptoOpenRentLamports(TOKEN_PROGRAM_ADDRESS);
const NOTHING_OUT = {
  payerChannels: 0,
  payToChannels: 0,
  payerOpensSince: 0,
  payerRentLamports: 0n,
  payToRentLamports: 0n,
  totalRentLamports: 0n,
};
const PAYER = "Buyer11111111111111111111111111111111111111";

describe("what an upto open fronts", () => {
  it(
    "the channel account's rent plus its escrow token account's (SPL 165 bytes, Token-2022 with ImmutableOwner 170 " +
      "bytes)",
    () => {
      expect(RENT).toBe(4_711_920n); // the figure issue 32 measured on the local chain
      expect(uptoOpenRentLamports(TOKEN_2022_PROGRAM_ADDRESS)).toBe(2_672_640n + 2_074_080n);
    },
  );

  it("the total rent limit is the share of the current balance", () => {
    expect(totalRentLimitLamports(CAPS, 1_000_000_000n)).toBe(500_000_000n);
    expect(totalRentLimitLamports({ ...CAPS, rentShareBps: 0 }, 1_000_000_000n)).toBe(0n);
  });
});

describe("uptoCapRefusal: the first cap an open would pass, each with its own reason", () => {
  const limits = uptoOpenLimits(CAPS, OPEN_CAPS, 1_000_000_000n, 10_000_000);
  const refused = (figures: Partial<typeof NOTHING_OUT>) =>
    uptoCapRefusal({ ...NOTHING_OUT, ...figures }, limits, RENT, PAYER);

  it("nothing out: no refusal", () => {
    expect(refused({})).toBeNull();
    expect(limits.opensSinceMs).toBe(10_000_000 - 3_600_000);
  });

  it("caps of one wallet answer 429 and name the key; the fee payer's own total answers 503", () => {
    expect(refused({ payerChannels: 10 })).toMatchObject({
      reason: "upto_open_channels_per_payer_exceeded",
      code: "RATE_LIMITED",
      payer: PAYER,
    });
    expect(refused({ payerChannels: 10 })!.message).toMatch(/SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: 10/);
    expect(refused({ payerOpensSince: 30 })).toMatchObject({
      reason: "upto_opens_per_payer_per_hour_exceeded",
      code: "RATE_LIMITED",
    });
    expect(refused({ payerRentLamports: 50_000_000n - RENT + 1n })).toMatchObject({
      reason: "fee_payer_rent_per_payer_exceeded",
      code: "RATE_LIMITED",
    });
    expect(refused({ payerRentLamports: 50_000_000n - RENT })).toBeNull(); // exactly at the cap fits
    expect(refused({ payToChannels: 100 })).toMatchObject({
      reason: "upto_open_channels_per_pay_to_exceeded",
      code: "RATE_LIMITED",
    });
    expect(refused({ payToRentLamports: 500_000_000n })).toMatchObject({
      reason: "fee_payer_rent_per_pay_to_exceeded",
    });
    const total = refused({ totalRentLamports: 500_000_000n - RENT + 1n });
    expect(total).toMatchObject({ reason: "fee_payer_rent_share_exceeded", code: "SERVICE_UNAVAILABLE" });
    expect(total!.message).toMatch(/SVC_FEE_PAYER_MAX_RENT_SHARE_BPS/);
  });
});

describe("exposureCapRefusal: held rent and spent lamports", () => {
  const who = { payer: PAYER, payTo: "Seller1111111111111111111111111111111111111" };

  it("held: rent per payer, per payTo, the share; a side without a wallet is not capped", () => {
    const limits = heldLimits(CAPS, 100_000_000n); // share: 50,000,000
    expect(
      exposureCapRefusal({ payerLamports: 49_000_000n, payToLamports: 0n, totalLamports: 0n }, limits, 2_000_000n, who),
    ).toMatchObject({ reason: "fee_payer_rent_per_payer_exceeded" });
    expect(
      exposureCapRefusal({ payerLamports: 49_000_000n, payToLamports: 0n, totalLamports: 0n }, limits, 2_000_000n, {
        payer: null,
        payTo: who.payTo,
      }),
    ).toBeNull();
    expect(
      exposureCapRefusal({ payerLamports: 0n, payToLamports: 0n, totalLamports: 49_000_000n }, limits, 2_000_000n, who),
    ).toMatchObject({ reason: "fee_payer_rent_share_exceeded", code: "SERVICE_UNAVAILABLE" });
  });

  it(
    "spent (the operator's jobs): their own daily pool only; a payer or payTo recorded on the booking is never " +
      "capped",
    () => {
      const limits = spentLimits(CAPS, 100_000_000);
      expect(limits.sinceMs).toBe(100_000_000 - 86_400_000);
      expect(
        exposureCapRefusal(
          { payerLamports: 0n, payToLamports: 0n, totalLamports: 999_000_000n },
          limits,
          2_000_000n,
          who,
        ),
      ).toMatchObject({ reason: "fee_payer_spend_per_day_exceeded", code: "SERVICE_UNAVAILABLE" });
      expect(
        exposureCapRefusal(
          { payerLamports: 0n, payToLamports: 0n, totalLamports: 998_000_000n },
          limits,
          2_000_000n,
          who,
        ),
      ).toBeNull();
      expect(
        exposureCapRefusal(
          { payerLamports: 10n ** 12n, payToLamports: 10n ** 12n, totalLamports: 0n },
          limits,
          2_000_000n,
          who,
        ),
      ).toBeNull();
    },
  );
});

describe("paymentFeeRefusal: what a buyer's payment costs the fee payer, per pool", () => {
  const limits = paymentFeeLimits(CAPS, 100_000_000);
  const NOTHING: PaymentFeeFigures = {
    pool: "buyers",
    payerLamports: 0n,
    sellerLamports: 0n,
    poolLamports: 0n,
    payerFailures: 0,
    state: null,
  };
  const refused = (figures: Partial<PaymentFeeFigures>) =>
    paymentFeeRefusal({ ...NOTHING, ...figures }, limits, 10_000n, PAYER);

  it("nothing spent: no refusal; a booking already live (a retry) is never refused", () => {
    expect(limits.sinceMs).toBe(100_000_000 - 86_400_000);
    expect(refused({})).toBeNull();
    expect(refused({ state: "spent", payerFailures: 99, poolLamports: 10n ** 12n })).toBeNull();
  });

  it(
    "a stranger's seller: the buyer's cap and failures (429), the payTo's cap (429), the strangers' pool " + "(503)",
    () => {
      expect(refused({ payerFailures: 3 })).toMatchObject({
        reason: "fee_payer_failures_per_payer_exceeded",
        code: "RATE_LIMITED",
      });
      expect(refused({ payerFailures: 2 })).toBeNull();
      expect(refused({ payerLamports: 30_000_000n - 9_999n })).toMatchObject({
        reason: "fee_payer_spend_per_payer_exceeded",
        code: "RATE_LIMITED",
        payer: PAYER,
      });
      expect(refused({ payerLamports: 30_000_000n - 10_000n })).toBeNull(); // exactly at the cap fits
      expect(refused({ sellerLamports: 50_000_000n })).toMatchObject({ reason: "fee_payer_spend_per_pay_to_exceeded" });
      const pool = refused({ poolLamports: 1_000_000_000n });
      expect(pool).toMatchObject({ reason: "fee_payer_buyer_spend_per_day_exceeded", code: "SERVICE_UNAVAILABLE" });
      expect(pool!.message).toMatch(/SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS: 1000000000/);
    },
  );

  it("a proven seller: its own quota (429) and the proven sellers' pool (503), never the strangers' caps", () => {
    expect(refused({ pool: "sellers", sellerLamports: 50_000_000n })).toBeNull();
    expect(refused({ pool: "sellers", sellerLamports: 500_000_000n })).toMatchObject({
      reason: "fee_payer_seller_quota_exceeded",
      code: "RATE_LIMITED",
    });
    expect(refused({ pool: "sellers", poolLamports: 2_000_000_000n })).toMatchObject({
      reason: "fee_payer_proven_sellers_spend_per_day_exceeded",
      code: "SERVICE_UNAVAILABLE",
    });
    // The buyer's own cap holds whichever seller it pays.
    expect(refused({ pool: "sellers", payerLamports: 30_000_000n })).toMatchObject({
      reason: "fee_payer_spend_per_payer_exceeded",
    });
  });
});

describe("belowMinimumRefusal: rent is fronted only above SVC_FEE_PAYER_MIN_LAMPORTS", () => {
  const config = { feePayerFloors: { minLamports: 100_000_000n, settleFloorLamports: 10_000_000n } } as Config;
  it("refuses (503) when the spend would take the balance below the minimum, and names both", () => {
    expect(belowMinimumRefusal(config, 100_000_000n + RENT, RENT, PAYER)).toBeNull();
    const low = belowMinimumRefusal(config, 100_000_000n + RENT - 1n, RENT, PAYER);
    expect(low).toMatchObject({ reason: "fee_payer_below_minimum", code: "SERVICE_UNAVAILABLE" });
    expect(low!.message).toMatch(/SVC_FEE_PAYER_MIN_LAMPORTS \(100000000\)/);
  });
});

describe("a SOL shortfall while the fee payer fronts the rent is the facilitator's, not the buyer's", () => {
  const SYSTEM = "11111111111111111111111111111111";
  const custom1 = { InstructionError: [2, { Custom: 1 }] };
  const systemShort = [
    `Program ${SYSTEM} invoke [2]`,
    "Transfer: insufficient lamports 1000, need 2672640",
    `Program ${SYSTEM} failed: custom program error: 0x1`,
  ];
  const tokenShort = [
    `Program ${TOKEN_PROGRAM_ADDRESS} invoke [2]`,
    "Program log: Error: insufficient funds",
    `Program ${TOKEN_PROGRAM_ADDRESS} failed: custom program error: 0x1`,
  ];

  it("System ran short in an upto Open: 503 facilitator_insufficient_funds", () => {
    expect(rejectionForTransactionError(custom1, systemShort, "token_rent_fronted")).toMatchObject({
      reason: "facilitator_insufficient_funds",
      code: "SERVICE_UNAVAILABLE",
    });
  });

  it(
    "the buyer's tokens ran short: still the buyer's insufficient_funds; a plain token payment's System shortfall " +
      "too",
    () => {
      expect(rejectionForTransactionError(custom1, tokenShort, "token_rent_fronted")).toMatchObject({
        reason: "insufficient_funds",
      });
      expect(rejectionForTransactionError(custom1, systemShort, "token")).toMatchObject({
        reason: "insufficient_funds",
      });
    },
  );
});

describe("an operator's own job", () => {
  it("a refusal carries no payer when none is known", () => {
    const refusal = exposureCapRefusal(
      { payerLamports: 0n, payToLamports: 0n, totalLamports: 2_000_000_000n },
      spentLimits(CAPS, 0),
      1n,
      { payer: null, payTo: null },
    );
    expect(refusal).toMatchObject({ reason: "fee_payer_spend_per_day_exceeded" });
    expect(refusal).not.toHaveProperty("payer");
  });
});
