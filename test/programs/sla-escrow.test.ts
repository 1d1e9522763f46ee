/**
 * The SLA-Escrow stand-in (localnet/programs/sla-escrow, a development fixture) executing the
 * facilitator's own instructions (src/chain/program/sla-escrow) in litesvm: funding, delivery, oracle,
 * approval, release, refund, TTL extension and closing. Bank, Config and Escrows are placed at their
 * PDAs with the ABI layouts, as the local chain seeds them.
 *
 * Arithmetic under test (NORMATIVE v1.1 §7.3, docs/sla-escrow-abi.md "Money: tip and fee"): when a verdict
 * exists and oracle_fee_bps > 0 the oracle is paid tip = max(oracle_fee_bps × amount / 10,000, min_oracle_tip)
 * (min_oracle_tip: v0.5 payments only, a stand-in choice); a release charges the protocol fee on the full amount,
 * fee = min(amount, max(min_fee_amount, floor(amount × fee_bps / 10,000))), kept in the escrow
 * (Escrow.fee_balance), and pays the seller amount − tip − fee (the stand-in lowers the fee to amount − tip where
 * both do not fit, which the ABI leaves open); a refund returns amount − tip.
 */
import { AccountRole, type Address } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import { SLA_ESCROW_STANDIN_ERROR as E } from "../../localnet/programs/errors";
import { PAYMENT_STATE, RESOLUTION_STATE } from "../../src/rails/sla-escrow/program/accounts";
import {
  getApproveDeliveryInstruction,
  getClosePaymentInstruction,
  getConfirmOracleInstruction,
  getExtendPaymentTtlInstruction,
  getSubmitDeliveryInstruction,
} from "../../src/rails/sla-escrow/program/instructions";
import {
  dataOf,
  lamportsOf,
  ownerOf,
  placeAccount,
  type SendResult,
  send,
  sendOk,
  setUnixTime,
  tokenBalance,
  withAccount,
  withAccountRole,
} from "./harness";
import {
  CONFIG_DEFAULTS,
  DEFAULT_TTL_SECONDS,
  DELIVERY_HASH,
  FEE_BPS,
  fundIx,
  fundV2Ix,
  generateKeyPairSigner,
  MIN_FEE_AMOUNT,
  newPayment,
  newSlaWorld,
  now,
  ORACLE_FEE_BPS,
  type PaymentSetup,
  paymentAccounts,
  payoutIx,
  placeEscrow,
  RESOLUTION_HASH,
  readEscrow,
  readPayment,
  SLA_PROGRAM_ID,
  type SlaWorld,
} from "./sla-world";

/** The protocol fee of a release (NORMATIVE v1.1 §7.3), on the full escrowed amount. */
function releaseFee(amount: bigint): bigint {
  const byRate = (amount * BigInt(FEE_BPS)) / 10_000n;
  const fee = byRate > MIN_FEE_AMOUNT ? byRate : MIN_FEE_AMOUNT;
  return fee < amount ? fee : amount;
}

function expectCode(result: SendResult, code: number): void {
  if (result.ok) throw new Error(`expected custom error ${code}, but the transaction succeeded`);
  expect(result.customCode, result.logs.join("\n")).toBe(code);
}

let w: SlaWorld;

async function funded(kind: "sol" | "spl", options: Parameters<typeof newPayment>[2] = {}): Promise<PaymentSetup> {
  const p = await newPayment(w, kind === "sol" ? w.sol : w.spl, options);
  await sendOk(w.svm, w.keeper, [fundIx(w, p)]);
  return p;
}

function submitDeliveryIx(p: PaymentSetup, hash: Uint8Array = DELIVERY_HASH, signer = p.seller) {
  return getSubmitDeliveryInstruction({ ...paymentAccounts(w, p), seller: signer, deliveryHash: hash });
}

function approveIx(p: PaymentSetup, hash: Uint8Array = DELIVERY_HASH, signer = p.buyer) {
  return getApproveDeliveryInstruction({ ...paymentAccounts(w, p), buyer: signer, deliveryHash: hash });
}

function confirmIx(p: PaymentSetup, state: number, signer = w.oracle, hash: Uint8Array = DELIVERY_HASH) {
  return getConfirmOracleInstruction({
    ...paymentAccounts(w, p),
    oracle: signer,
    deliveryHash: hash,
    resolutionHash: RESOLUTION_HASH,
    reason: 7,
    state,
  });
}

beforeEach(async () => {
  w = await newSlaWorld();
});

describe("SLA-Escrow stand-in: FundPayment", () => {
  it("funds a SOL payment: the amount moves into the SOL storage and a Payment records the terms", async () => {
    const p = await newPayment(w, w.sol);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    const storage0 = lamportsOf(w.svm, w.sol.funds);
    const t0 = now(w);
    await sendOk(w.svm, w.keeper, [fundIx(w, p)]);

    const paymentRent = w.svm.minimumBalanceForRentExemption(384n);
    expect(lamportsOf(w.svm, w.sol.funds) - storage0).toBe(p.amount);
    expect(buyer0 - lamportsOf(w.svm, p.buyer.address)).toBe(p.amount + paymentRent);
    expect(ownerOf(w.svm, p.payment)).toBe(SLA_PROGRAM_ID);
    expect(dataOf(w.svm, p.payment).length).toBe(384);
    expect(readPayment(w, p)).toMatchObject({
      escrow: w.sol.escrow,
      buyer: p.buyer.address,
      seller: p.seller.address,
      mint: w.sol.mint,
      oracleAuthority: w.oracle.address,
      amount: p.amount,
      minFeeAmount: MIN_FEE_AMOUNT,
      createdAtUnixSeconds: t0,
      expiresAtUnixSeconds: t0 + p.ttlSeconds,
      closedAtUnixSeconds: 0n,
      deliveryTimestampUnixSeconds: 0n,
      closureDelaySeconds: CONFIG_DEFAULTS.closureDelaySeconds,
      refundCooldownSeconds: CONFIG_DEFAULTS.refundCooldownSeconds,
      deliveryCutoffSeconds: CONFIG_DEFAULTS.deliveryCutoffSeconds,
      feeBps: FEE_BPS,
      state: PAYMENT_STATE.FUNDED,
      resolutionState: RESOLUTION_STATE.PENDING,
    });
    expect(readPayment(w, p).paymentUid).toEqual(p.uid);
    expect(readEscrow(w, w.sol).tokenLiquidity).toBe(p.amount);
  });

  it("funds an SPL payment into the escrow's token account", async () => {
    const p = await newPayment(w, w.spl);
    const buyerTokens0 = tokenBalance(w.svm, p.buyerAta!);
    await sendOk(w.svm, w.keeper, [fundIx(w, p)]);
    expect(tokenBalance(w.svm, w.spl.funds)).toBe(p.amount);
    expect(buyerTokens0 - tokenBalance(w.svm, p.buyerAta!)).toBe(p.amount);
    expect(readEscrow(w, w.spl).tokenLiquidity).toBe(p.amount);
  });

  it("stays within the 80,000 compute units a facilitator-sponsored funding may declare", async () => {
    for (const escrow of [w.sol, w.spl]) {
      const p = await newPayment(w, escrow);
      const result = await send(w.svm, w.keeper, [fundIx(w, p)]);
      if (!result.ok) throw new Error(result.logs.join("\n"));
      expect(result.computeUnits).toBeLessThan(80_000n);
    }
  });

  it("refuses to fund the same payment uid twice", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [fundIx(w, p)]), E.PaymentAlreadyExists);
  });

  it("opens a fresh SOL storage: the first buyer also pays its rent-exempt reserve", async () => {
    w = await newSlaWorld({ freshSolStorage: true });
    const p = await newPayment(w, w.sol, { amount: 5_000n });
    await sendOk(w.svm, w.keeper, [fundIx(w, p)]);
    expect(lamportsOf(w.svm, w.sol.funds)).toBe(w.svm.minimumBalanceForRentExemption(0n) + 5_000n);
  });

  it("checks the payment PDA, the buyer's signature and the seeded accounts", async () => {
    const p = await newPayment(w, w.sol);
    const other = await newPayment(w, w.sol);
    expectCode(await send(w.svm, w.keeper, [withAccount(fundIx(w, p), 4, other.payment)]), E.InvalidPaymentAddress);
    // keeper pays the transaction fee; the buyer's meta is left unsigned.
    expectCode(
      await send(w.svm, w.keeper, [withAccountRole(fundIx(w, p), 0, AccountRole.WRITABLE)]),
      E.MissingSignature,
    );

    // Bank-shaped and Config-shaped accounts away from their PDAs.
    const fake = (await generateKeyPairSigner()).address;
    placeAccount(w.svm, fake, SLA_PROGRAM_ID, dataOf(w.svm, w.bank));
    expectCode(await send(w.svm, w.keeper, [withAccount(fundIx(w, p), 1, fake)]), E.InvalidBank);
    const fakeConfig = (await generateKeyPairSigner()).address;
    placeAccount(w.svm, fakeConfig, SLA_PROGRAM_ID, dataOf(w.svm, w.config));
    expectCode(await send(w.svm, w.keeper, [withAccount(fundIx(w, p), 2, fakeConfig)]), E.InvalidConfig);
    // The SPL escrow for a SOL payment.
    expectCode(await send(w.svm, w.keeper, [withAccount(fundIx(w, p), 3, w.spl.escrow)]), E.InvalidMint);
    // A SOL storage that is not the escrow's.
    expectCode(await send(w.svm, w.keeper, [withAccount(fundIx(w, p), 6, fake)]), E.InvalidSolStorage);
  });

  it("enforces the TTL bounds, the amount bounds, the seller and the escrow switches", async () => {
    const shortTtl = await newPayment(w, w.sol, { ttlSeconds: 59n });
    expectCode(await send(w.svm, w.keeper, [fundIx(w, shortTtl)]), E.InvalidTtl);
    const longTtl = await newPayment(w, w.sol, { ttlSeconds: 2_592_001n });
    expectCode(await send(w.svm, w.keeper, [fundIx(w, longTtl)]), E.InvalidTtl);
    const tiny = await newPayment(w, w.sol, { amount: 999n });
    expectCode(await send(w.svm, w.keeper, [fundIx(w, tiny)]), E.AmountOutOfRange);

    const p = await newPayment(w, w.sol);
    const toEscrow = fundIx(w, { ...p, seller: { ...p.seller, address: w.sol.escrow } });
    expectCode(await send(w.svm, w.keeper, [toEscrow]), E.InvalidSeller);

    placeEscrow(w, w.sol, { maxPaymentAmount: p.amount - 1n });
    expectCode(await send(w.svm, w.keeper, [fundIx(w, p)]), E.AmountOutOfRange);
    placeEscrow(w, w.sol, { paused: true });
    expectCode(await send(w.svm, w.keeper, [fundIx(w, p)]), E.EscrowPaused);
    placeEscrow(w, w.sol, { openAtUnixSeconds: now(w) + 60n });
    expectCode(await send(w.svm, w.keeper, [fundIx(w, p)]), E.EscrowNotOpen);
  });
});

describe("SLA-Escrow stand-in: SubmitDelivery", () => {
  it("records the seller's delivery hash and time", async () => {
    const p = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    const payment = readPayment(w, p);
    expect(payment.deliveryHash).toEqual(DELIVERY_HASH);
    expect(payment.deliveryTimestampUnixSeconds).toBe(now(w));
  });

  it("accepts a delivery at the cutoff and refuses it one second later (DeliveryTooLateForOracle)", async () => {
    const atCutoff = await funded("sol");
    const late = await funded("sol");
    const cutoff = readPayment(w, atCutoff).expiresAtUnixSeconds - CONFIG_DEFAULTS.deliveryCutoffSeconds;
    setUnixTime(w.svm, cutoff);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(atCutoff)]);
    setUnixTime(w.svm, readPayment(w, late).expiresAtUnixSeconds - CONFIG_DEFAULTS.deliveryCutoffSeconds + 1n);
    const result = await send(w.svm, w.keeper, [submitDeliveryIx(late)]);
    expectCode(result, E.DeliveryTooLateForOracle);
    expect(result.logs.join("\n")).toContain("DeliveryTooLateForOracle");
  });

  it("accepts only the payment's seller, once, with a non-zero hash", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [submitDeliveryIx(p, DELIVERY_HASH, p.buyer)]), E.NotPaymentSeller);
    expectCode(await send(w.svm, w.keeper, [submitDeliveryIx(p, new Uint8Array(32))]), E.InvalidDeliveryHash);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    expectCode(await send(w.svm, w.keeper, [submitDeliveryIx(p)]), E.DeliveryAlreadySubmitted);
  });
});

describe("SLA-Escrow stand-in: ApproveDelivery / ConfirmOracle", () => {
  it("lets the buyer approve the submitted delivery", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [approveIx(p)]), E.DeliveryNotSubmitted);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    expectCode(await send(w.svm, w.keeper, [approveIx(p, DELIVERY_HASH, p.seller)]), E.NotPaymentBuyer);
    expectCode(await send(w.svm, w.keeper, [approveIx(p, RESOLUTION_HASH)]), E.DeliveryHashMismatch);
    await sendOk(w.svm, w.keeper, [approveIx(p)]);
    expect(readPayment(w, p).resolutionState).toBe(RESOLUTION_STATE.APPROVED);
    expectCode(await send(w.svm, w.keeper, [approveIx(p)]), E.ResolutionAlreadySet);
  });

  it("lets only the payment's oracle confirm, once, with a valid state and the delivery's hash", async () => {
    const p = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    expectCode(await send(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.APPROVED, p.buyer)]), E.NotPaymentOracle);
    expectCode(await send(w.svm, w.keeper, [confirmIx(p, 3)]), E.InvalidResolutionState);
    expectCode(
      await send(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.APPROVED, w.oracle, RESOLUTION_HASH)]),
      E.DeliveryHashMismatch,
    );
    await sendOk(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.APPROVED)]);
    const payment = readPayment(w, p);
    expect(payment).toMatchObject({ resolutionState: RESOLUTION_STATE.APPROVED, resolutionReason: 7 });
    expect(payment.resolutionHash).toEqual(RESOLUTION_HASH);
    expectCode(await send(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.REJECTED)]), E.ResolutionAlreadySet);
  });

  it("ABI §5.8: refuses any verdict without a delivery, and after expires_at", async () => {
    const p = await funded("sol");
    for (const state of [RESOLUTION_STATE.APPROVED, RESOLUTION_STATE.REJECTED]) {
      expectCode(
        await send(w.svm, w.keeper, [confirmIx(p, state, w.oracle, new Uint8Array(32))]),
        E.DeliveryNotSubmitted,
      );
    }
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + 1n);
    expectCode(await send(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.REJECTED)]), E.PaymentExpired);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds);
    await sendOk(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.REJECTED)]);
  });
});

/** Who gets what from one payout: the tip (when due) and, on a release, the protocol fee on the full amount. */
function split(amount: bigint, kind: "release" | "refund", tipDue: boolean, minOracleTip = 0n) {
  const byRate = (amount * BigInt(ORACLE_FEE_BPS)) / 10_000n;
  const tip = tipDue ? (byRate > minOracleTip ? byRate : minOracleTip) : 0n;
  const fullFee = kind === "release" ? releaseFee(amount) : 0n;
  const fee = fullFee < amount - tip ? fullFee : amount - tip;
  return { tip, fee, net: amount - tip - fee };
}

describe("SLA-Escrow stand-in: ReleasePayment (ABI §5.3)", () => {
  async function approved(kind: "sol" | "spl", amount?: bigint): Promise<PaymentSetup> {
    const p = await funded(kind, amount === undefined ? {} : { amount });
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), approveIx(p)]);
    return p;
  }

  it(
    "SOL after a verdict: the fee is on the full amount (NORMATIVE v1.1 §7.3, not on what the tip leaves); the " +
      "seller gets amount − tip − fee, the oracle its tip, the fee stays in the escrow",
    async () => {
      const p = await approved("sol");
      const seller0 = lamportsOf(w.svm, p.seller.address);
      const oracle0 = lamportsOf(w.svm, w.oracle.address);
      const storage0 = lamportsOf(w.svm, w.sol.funds);
      await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
      const { tip, fee, net } = split(p.amount, "release", true);
      expect([tip, fee, net]).toEqual([5_000_000n, 10_000_000n, 985_000_000n]);
      expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(net);
      expect(lamportsOf(w.svm, w.oracle.address) - oracle0).toBe(tip);
      expect(storage0 - lamportsOf(w.svm, w.sol.funds)).toBe(net + tip);
      expect(readEscrow(w, w.sol)).toMatchObject({ feeBalance: fee, tokenLiquidity: 0n });
      // closed_at is when ClosePayment becomes possible: settlement + the closure delay (docs/sla-escrow-abi.md, ABI
      // §4.4).
      expect(readPayment(w, p)).toMatchObject({
        state: PAYMENT_STATE.RELEASED,
        closedAtUnixSeconds: now(w) + CONFIG_DEFAULTS.closureDelaySeconds,
      });
    },
  );

  it("charges the minimum fee when the rate gives less", async () => {
    const p = await approved("sol", 500_000n);
    const seller0 = lamportsOf(w.svm, p.seller.address);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    expect(split(500_000n, "release", true)).toEqual({ tip: 2_500n, fee: MIN_FEE_AMOUNT, net: 487_500n });
    expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(487_500n);
  });

  it(
    "where the tip and the minimum fee together exceed the amount, the fee gives way (the ABI is silent): nothing " +
      "underflows",
    async () => {
      const p = await approved("sol", 10_000n);
      const seller0 = lamportsOf(w.svm, p.seller.address);
      const oracle0 = lamportsOf(w.svm, w.oracle.address);
      await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
      expect(split(10_000n, "release", true)).toEqual({ tip: 50n, fee: 9_950n, net: 0n });
      expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(0n);
      expect(lamportsOf(w.svm, w.oracle.address) - oracle0).toBe(50n);
      expect(readEscrow(w, w.sol).feeBalance).toBe(9_950n);
    },
  );

  it("SPL after the oracle's approval: seller and oracle token accounts paid to the unit", async () => {
    const p = await funded("spl");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), confirmIx(p, RESOLUTION_STATE.APPROVED)]);
    const oracle0 = tokenBalance(w.svm, w.oracleAta);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    const { tip, fee, net } = split(p.amount, "release", true);
    expect([tip, fee, net]).toEqual([25_000n, 50_000n, 4_925_000n]);
    expect(tokenBalance(w.svm, p.sellerAta!)).toBe(net);
    expect(tokenBalance(w.svm, w.oracleAta) - oracle0).toBe(tip);
    expect(tokenBalance(w.svm, w.spl.funds)).toBe(fee);
    expect(readEscrow(w, w.spl).feeBalance).toBe(fee);
  });

  it("SPL: creates the seller's missing token account, paid by the caller (ABI: created if absent)", async () => {
    const p = await funded("spl", { noSellerAta: true });
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), approveIx(p)]);
    expect(w.svm.getAccount(p.sellerAta!).exists).toBe(false);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    expect(tokenBalance(w.svm, p.sellerAta!)).toBe(split(p.amount, "release", true).net);
  });

  it("needs the tip accounts once a verdict exists, and pays only the payment's oracle", async () => {
    const p = await approved("sol");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release", { tip: false })]), E.NotEnoughAccounts);
    const stranger = await generateKeyPairSigner();
    const wrongOracle = withAccount(payoutIx(w, p, "release"), 9, stranger.address);
    expectCode(await send(w.svm, w.keeper, [wrongOracle]), E.InvalidRecipient);
  });

  it("anyone may release once expired with an unrejected delivery (now > expires_at), with no tip", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.DeliveryNotSubmitted);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.ReleaseNotYetAvailable);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.ReleaseNotYetAvailable);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + 1n);
    const seller0 = lamportsOf(w.svm, p.seller.address);
    const oracle0 = lamportsOf(w.svm, w.oracle.address);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(split(p.amount, "release", false).net);
    expect(lamportsOf(w.svm, w.oracle.address)).toBe(oracle0);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.PaymentNotFunded);
  });

  it("before any outcome only the bank authority may release (admin override)", async () => {
    const p = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    expectCode(
      await send(w.svm, w.keeper, [payoutIx(w, p, "release", { caller: p.seller })]),
      E.ReleaseNotYetAvailable,
    );
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release", { caller: w.admin })]);
    expect(readPayment(w, p).state).toBe(PAYMENT_STATE.RELEASED);
  });

  it("never releases a rejected delivery, and pays only the seller", async () => {
    const rejected = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(rejected), confirmIx(rejected, RESOLUTION_STATE.REJECTED)]);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, rejected, "release")]), E.DeliveryRejected);

    const p = await approved("sol");
    expectCode(
      await send(w.svm, w.keeper, [payoutIx(w, p, "release", { recipient: p.buyer.address })]),
      E.InvalidRecipient,
    );
    const spl = await approved("spl");
    expectCode(
      await send(w.svm, w.keeper, [payoutIx(w, spl, "release", { recipient: spl.buyerAta })]),
      E.InvalidRecipient,
    );
    // The caller must sign (here someone else pays the transaction fee).
    expectCode(
      await send(w.svm, p.buyer, [withAccountRole(payoutIx(w, p, "release"), 0, AccountRole.WRITABLE)]),
      E.MissingSignature,
    );
  });
});

describe("SLA-Escrow stand-in: RefundPayment (ABI §5.4)", () => {
  it("anyone may refund an undelivered payment once expired (now > expires_at): the whole amount, no tip", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.RefundNotYetAvailable);
    const expiresAt = readPayment(w, p).expiresAtUnixSeconds;
    setUnixTime(w.svm, expiresAt);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.RefundNotYetAvailable);
    setUnixTime(w.svm, expiresAt + 1n);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund")]);
    expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(p.amount);
    expect(readPayment(w, p).state).toBe(PAYMENT_STATE.REFUNDED);
    expect(readEscrow(w, w.sol)).toMatchObject({ feeBalance: 0n, tokenLiquidity: 0n });
  });

  it(
    "before any outcome it is a cancellation: the seller or the admin at once, the buyer after its " + "cooldown",
    async () => {
      const p = await funded("sol");
      expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund", { caller: p.buyer })]), E.RefundNotYetAvailable);
      setUnixTime(w.svm, readPayment(w, p).createdAtUnixSeconds + CONFIG_DEFAULTS.refundCooldownSeconds - 1n);
      expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund", { caller: p.buyer })]), E.RefundNotYetAvailable);
      setUnixTime(w.svm, readPayment(w, p).createdAtUnixSeconds + CONFIG_DEFAULTS.refundCooldownSeconds);
      await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund", { caller: p.buyer })]);

      const bySeller = await funded("sol");
      await sendOk(w.svm, w.keeper, [payoutIx(w, bySeller, "refund", { caller: bySeller.seller })]);
      const byAdmin = await funded("sol");
      await sendOk(w.svm, w.keeper, [payoutIx(w, byAdmin, "refund", { caller: w.admin })]);
      expect([readPayment(w, bySeller).state, readPayment(w, byAdmin).state]).toEqual([
        PAYMENT_STATE.REFUNDED,
        PAYMENT_STATE.REFUNDED,
      ]);
    },
  );

  it(
    "a rejected SPL delivery: the buyer gets amount − tip at once, the oracle its tip, the buyer's account " + "only",
    async () => {
      const p = await funded("spl");
      await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), confirmIx(p, RESOLUTION_STATE.REJECTED)]);
      expectCode(
        await send(w.svm, w.keeper, [payoutIx(w, p, "refund", { recipient: p.sellerAta })]),
        E.InvalidRecipient,
      );
      expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund", { tip: false })]), E.NotEnoughAccounts);
      const buyer0 = tokenBalance(w.svm, p.buyerAta!);
      const oracle0 = tokenBalance(w.svm, w.oracleAta);
      await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund")]);
      const { tip, net } = split(p.amount, "refund", true);
      expect([tip, net]).toEqual([25_000n, 4_975_000n]);
      expect(tokenBalance(w.svm, p.buyerAta!) - buyer0).toBe(net);
      expect(tokenBalance(w.svm, w.oracleAta) - oracle0).toBe(tip);
      expect(tokenBalance(w.svm, w.spl.funds)).toBe(0n);
    },
  );

  it("a rejected SOL delivery pays the oracle wallet its tip", async () => {
    const p = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), confirmIx(p, RESOLUTION_STATE.REJECTED)]);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    const oracle0 = lamportsOf(w.svm, w.oracle.address);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund")]);
    const { tip, net } = split(p.amount, "refund", true);
    expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(net);
    expect(lamportsOf(w.svm, w.oracle.address) - oracle0).toBe(tip);
  });

  it("does not refund a delivered (or approved) payment after expiry", async () => {
    const p = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + 1n);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.DeliveryApproved);
  });
});

describe("SLA-Escrow stand-in: extended (v0.5) payments pay out with the PaymentExt tail", () => {
  it(
    "release: PaymentExt and buyer before the tip accounts; the PaymentExt's rent goes to the buyer; min_oracle_tip " +
      "applies",
    async () => {
      const p = await newPayment(w, w.sol);
      await sendOk(w.svm, w.keeper, [fundV2Ix(w, p, { minOracleTip: 20_000_000n })]);
      await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), confirmIx(p, RESOLUTION_STATE.APPROVED)]);
      expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release", { extended: false })]), E.NotEnoughAccounts);
      const extRent = lamportsOf(w.svm, p.paymentExt);
      const [seller0, buyer0, oracle0] = [
        lamportsOf(w.svm, p.seller.address),
        lamportsOf(w.svm, p.buyer.address),
        lamportsOf(w.svm, w.oracle.address),
      ];
      await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
      const { tip, net } = split(p.amount, "release", true, 20_000_000n);
      expect(tip).toBe(20_000_000n);
      expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(net);
      expect(lamportsOf(w.svm, w.oracle.address) - oracle0).toBe(tip);
      expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(extRent);
      expect(w.svm.getAccount(p.paymentExt).exists).toBe(false);
    },
  );

  it("refund (SPL, expired without delivery): the tail without tip accounts", async () => {
    const p = await newPayment(w, w.spl);
    await sendOk(w.svm, w.keeper, [fundV2Ix(w, p)]);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + 1n);
    const buyer0 = tokenBalance(w.svm, p.buyerAta!);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund")]);
    expect(tokenBalance(w.svm, p.buyerAta!) - buyer0).toBe(p.amount);
    expect(w.svm.getAccount(p.paymentExt).exists).toBe(false);
  });
});

describe("SLA-Escrow stand-in: ExtendPaymentTTL (ABI §5.6) and ClosePayment (ABI §5.5)", () => {
  function extendIx(p: PaymentSetup, seconds: bigint, signer = p.buyer) {
    return getExtendPaymentTtlInstruction({ ...paymentAccounts(w, p), buyer: signer, additionalSeconds: seconds });
  }

  function closeIx(p: PaymentSetup, buyer: Address = p.buyer.address) {
    return getClosePaymentInstruction({ ...paymentAccounts(w, p), caller: w.keeper, buyer });
  }

  it("extends the TTL for the buyer only, while funded and unexpired, within 30 days in total", async () => {
    const p = await funded("sol");
    const expiresAt = readPayment(w, p).expiresAtUnixSeconds;
    expectCode(await send(w.svm, w.keeper, [extendIx(p, 600n, p.seller)]), E.NotPaymentBuyer);
    expectCode(await send(w.svm, w.keeper, [extendIx(p, 0n)]), E.InvalidTtlExtension);
    expectCode(
      await send(w.svm, w.keeper, [extendIx(p, 2_592_000n - DEFAULT_TTL_SECONDS + 1n)]),
      E.InvalidTtlExtension,
    );
    await sendOk(w.svm, w.keeper, [extendIx(p, 600n)]);
    expect(readPayment(w, p).expiresAtUnixSeconds).toBe(expiresAt + 600n);
    setUnixTime(w.svm, expiresAt + 601n);
    expectCode(await send(w.svm, w.keeper, [extendIx(p, 600n)]), E.PaymentExpired);
  });

  it("closes a settled payment once closed_at has come, returning its rent to the buyer", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [closeIx(p)]), E.PaymentNotSettled);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), approveIx(p)]);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    const closedAt = readPayment(w, p).closedAtUnixSeconds;
    setUnixTime(w.svm, closedAt - 1n);
    expectCode(await send(w.svm, w.keeper, [closeIx(p)]), E.CloseNotYetAvailable);
    setUnixTime(w.svm, closedAt);
    expectCode(await send(w.svm, w.keeper, [closeIx(p, p.seller.address)]), E.InvalidRecipient);
    const rent = lamportsOf(w.svm, p.payment);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    await sendOk(w.svm, w.keeper, [closeIx(p)]);
    expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(rent);
    expect(w.svm.getAccount(p.payment).exists).toBe(false);
  });
});
