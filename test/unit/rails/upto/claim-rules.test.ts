import { type Address, address, getAddressEncoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import type { AccountSnapshot } from "../../../../src/chain/accounts";
import { CLOSING_CLAIM_MARGIN_SECONDS, type ClaimFacts, claimShape } from "../../../../src/rails/upto/claim-rules";
import { CHANNEL_STATUS, type Channel } from "../../../../src/rails/upto/program/accounts";

/**
 * The upto claim's rules over one read of the chain (on-chain behaviour: test/worker/rails/upto/claim-states.test.ts).
 */

const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const MINT = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
const FEE_PAYER = address("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX");
const BUYER = address("Cs2zdfUNonRdRGsiZUQQLdTxzxVvJZmgiX2mpLYKuEqP");
const PAY_TO = address("4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap");
const AUTHORIZER = address("75c2huVzDW1Eq4kD86by5392sjdJzuAT195XNgP2f2tX");
const NOW = 1_800_000_000n;

function tokenAccount(owner: Address, state = 1): AccountSnapshot {
  const data = new Uint8Array(165);
  data.set(getAddressEncoder().encode(MINT), 0);
  data.set(getAddressEncoder().encode(owner), 32);
  data[108] = state;
  return { address: owner, owner: TOKEN, lamports: 2_039_280n, data, executable: false };
}

function channel(overrides: Partial<Channel> = {}): Channel {
  return {
    version: 1,
    bump: 255,
    status: CHANNEL_STATUS.OPEN,
    salt: 7n,
    deposit: 2_000_000n,
    settled: 0n,
    payoutWatermark: 0n,
    closureStartedAt: 0n,
    payerWithdrawnAt: 0n,
    gracePeriod: 900,
    distributionHash: new Uint8Array(32),
    payer: BUYER,
    payee: FEE_PAYER,
    authorizedSigner: AUTHORIZER,
    mint: MINT,
    rentPayer: FEE_PAYER,
    openSlot: 100n,
    ...overrides,
  };
}

function facts(overrides: Partial<ClaimFacts> = {}): ClaimFacts {
  return {
    channelId: address("SysvarC1ock11111111111111111111111111111111"),
    channel: channel(),
    chainUnixSeconds: NOW,
    feePayer: FEE_PAYER,
    payer: BUYER,
    mint: MINT,
    receiverAuthorizer: AUTHORIZER,
    ceiling: 2_000_000n,
    withdrawDelay: 900,
    splitPaysPayTo: true,
    payTo: PAY_TO,
    payToAccount: { address: PAY_TO, snapshot: tokenAccount(PAY_TO) },
    buyerAccount: { address: BUYER, snapshot: tokenAccount(BUYER) },
    tokenProgram: TOKEN,
    ...overrides,
  };
}

const reasonOf = (result: ReturnType<typeof claimShape>) => ("reason" in result ? result.reason : result.shape);

describe("claimShape: where the program accepts the claim", () => {
  it("an open channel, a channel topped up above the ceiling, a closing channel within its grace period", () => {
    expect(claimShape(facts(), 750_000n)).toEqual({ ok: true, shape: "seal" });
    expect(claimShape(facts({ channel: channel({ deposit: 2_500_000n }) }), 750_000n)).toEqual({
      ok: true,
      shape: "seal",
    });
    const closing = channel({ status: CHANNEL_STATUS.CLOSING, closureStartedAt: NOW - 100n });
    expect(claimShape(facts({ channel: closing }), 750_000n)).toEqual({ ok: true, shape: "seal" });
  });

  it(
    "a closing channel whose grace period ends within the margin, a sealed or distributed one, a gone one: " +
      "refused",
    () => {
      const deadline = (startedAt: bigint) =>
        channel({ status: CHANNEL_STATUS.CLOSING, closureStartedAt: startedAt, gracePeriod: 900 });
      expect(
        reasonOf(claimShape(facts({ channel: deadline(NOW - 900n + CLOSING_CLAIM_MARGIN_SECONDS + 1n) }), 1n)),
      ).toBe("seal");
      expect(reasonOf(claimShape(facts({ channel: deadline(NOW - 900n + CLOSING_CLAIM_MARGIN_SECONDS) }), 1n))).toBe(
        "invalid_upto_svm_channel_state",
      );
      expect(reasonOf(claimShape(facts({ channel: deadline(NOW - 900n) }), 1n))).toBe("invalid_upto_svm_channel_state");
      expect(reasonOf(claimShape(facts({ channel: channel({ status: CHANNEL_STATUS.SEALED }) }), 1n))).toBe(
        "invalid_upto_svm_channel_state",
      );
      expect(reasonOf(claimShape(facts({ channel: channel({ status: CHANNEL_STATUS.DISTRIBUTED }) }), 1n))).toBe(
        "invalid_upto_svm_channel_state",
      );
      expect(reasonOf(claimShape(facts({ channel: null }), 1n))).toBe("invalid_upto_svm_channel_state");
    },
  );

  it(
    "still the payment's channel: parties, mint, voucher key, grace period, split, a deposit at least the ceiling, " +
      "a voucher above the watermark",
    () => {
      const other = address("11111111111111111111111111111111");
      for (const bent of [
        { channel: channel({ payee: other }) },
        { channel: channel({ rentPayer: other }) },
        { channel: channel({ payer: other }) },
        { channel: channel({ mint: other }) },
        { channel: channel({ authorizedSigner: other }) },
        { channel: channel({ gracePeriod: 60 }) },
        { channel: channel({ deposit: 1_999_999n }) },
        { splitPaysPayTo: false },
        { channel: channel({ settled: 750_000n }) },
      ]) {
        expect(
          reasonOf(claimShape(facts(bent), 750_000n)),
          JSON.stringify(bent, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
        ).toBe("invalid_upto_svm_channel_state");
      }
      expect(reasonOf(claimShape(facts(), 2_000_001n))).toBe("invalid_upto_svm_payload_settlement_exceeds_amount");
      // In its own words, so a worker test can tell this layer's refusal from the settle's and the common checks'.
      expect(claimShape(facts(), 2_000_001n)).toMatchObject({
        message: expect.stringMatching(/^The charge 2000001 exceeds the channel's deposit \d+$/),
      });
    },
  );
});

describe("claimShape: nothing goes to the program's treasury", () => {
  it("payTo's account must take the charge (a cancel pays payTo nothing)", () => {
    const payToAccount = { address: PAY_TO, snapshot: null };
    expect(reasonOf(claimShape(facts({ payToAccount }), 750_000n))).toBe("invalid_upto_svm_payout_account_unusable");
    expect(reasonOf(claimShape(facts({ payToAccount }), 0n))).toBe("seal");
  });

  it(
    "the buyer's account cannot take its refund: an open channel is settled without the seal; a cancel or a closing " +
      "channel is refused",
    () => {
      for (const snapshot of [null, tokenAccount(BUYER, 2), tokenAccount(PAY_TO)]) {
        const buyerAccount = { address: BUYER, snapshot };
        expect(reasonOf(claimShape(facts({ buyerAccount }), 750_000n))).toBe("settle_keeping_refund");
        expect(reasonOf(claimShape(facts({ buyerAccount }), 0n))).toBe("invalid_upto_svm_payout_account_unusable");
        const closing = channel({ status: CHANNEL_STATUS.CLOSING, closureStartedAt: NOW - 100n });
        expect(reasonOf(claimShape(facts({ buyerAccount, channel: closing }), 750_000n))).toBe(
          "invalid_upto_svm_payout_account_unusable",
        );
      }
    },
  );

  it("no refund, nothing to check: the charge is the whole deposit", () => {
    expect(reasonOf(claimShape(facts({ buyerAccount: { address: BUYER, snapshot: null } }), 2_000_000n))).toBe("seal");
  });
});
