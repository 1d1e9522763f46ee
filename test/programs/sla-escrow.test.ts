/**
 * The SLA-Escrow stand-in (localnet/programs/sla-escrow, a development fixture) executing the
 * facilitator's own instructions (src/programs/sla-escrow) in litesvm: funding, delivery, oracle,
 * approval, release, refund, TTL extension and closing. Bank, Config and Escrows are placed at their
 * PDAs with the ABI layouts, as the local chain seeds them.
 *
 * Documented arithmetic under test (localnet/programs/README.md): a release pays the seller
 * amount − fee with fee = min(max(fee_bps × amount / 10,000, min_fee_amount), amount), the fee
 * staying in the escrow (Escrow.fee_balance); a refund returns the whole amount.
 */
import { AccountRole, type Address } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import { SLA_ESCROW_STANDIN_ERROR as E } from "../../localnet/programs/errors";
import { PAYMENT_STATE, RESOLUTION_STATE } from "../../src/programs/sla-escrow/accounts";
import {
  getApproveDeliveryInstruction,
  getClosePaymentInstruction,
  getConfirmOracleInstruction,
  getExtendPaymentTtlInstruction,
  getSubmitDeliveryInstruction,
} from "../../src/programs/sla-escrow/instructions";
import {
  dataOf,
  lamportsOf,
  ownerOf,
  placeAccount,
  send,
  sendOk,
  setUnixTime,
  tokenBalance,
  withAccount,
  withAccountRole,
  type SendResult,
} from "./harness";
import {
  CONFIG_DEFAULTS,
  DELIVERY_HASH,
  FEE_BPS,
  MIN_FEE_AMOUNT,
  RESOLUTION_HASH,
  SLA_PROGRAM_ID,
  fundIx,
  generateKeyPairSigner,
  newPayment,
  newSlaWorld,
  now,
  paymentAccounts,
  payoutIx,
  placeEscrow,
  readEscrow,
  readPayment,
  type PaymentSetup,
  type SlaWorld,
} from "./sla-world";

/** The documented escrow fee of a release. */
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
    expectCode(await send(w.svm, w.keeper, [withAccountRole(fundIx(w, p), 0, AccountRole.WRITABLE)]), E.MissingSignature);

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

  it("refuses an oracle approval without a delivery", async () => {
    const p = await funded("sol");
    expectCode(
      await send(w.svm, w.keeper, [confirmIx(p, RESOLUTION_STATE.APPROVED, w.oracle, new Uint8Array(32))]),
      E.DeliveryNotSubmitted,
    );
  });
});

describe("SLA-Escrow stand-in: ReleasePayment", () => {
  async function approved(kind: "sol" | "spl", amount?: bigint): Promise<PaymentSetup> {
    const p = await funded(kind, amount === undefined ? {} : { amount });
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), approveIx(p)]);
    return p;
  }

  it("pays an approved SOL payment to the seller, less the 1% escrow fee kept in the escrow", async () => {
    const p = await approved("sol");
    const seller0 = lamportsOf(w.svm, p.seller.address);
    const storage0 = lamportsOf(w.svm, w.sol.funds);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    const fee = releaseFee(p.amount);
    expect(fee).toBe(10_000_000n);
    expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(p.amount - fee);
    expect(storage0 - lamportsOf(w.svm, w.sol.funds)).toBe(p.amount - fee);
    expect(readEscrow(w, w.sol)).toMatchObject({ feeBalance: fee, tokenLiquidity: 0n });
    expect(readPayment(w, p)).toMatchObject({ state: PAYMENT_STATE.RELEASED, closedAtUnixSeconds: now(w) });
  });

  it("charges the minimum fee when the rate gives less", async () => {
    const p = await approved("sol", 500_000n);
    const seller0 = lamportsOf(w.svm, p.seller.address);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    expect(lamportsOf(w.svm, p.seller.address) - seller0).toBe(500_000n - MIN_FEE_AMOUNT);
  });

  it("releases an oracle-approved SPL payment to the seller's token account", async () => {
    const p = await funded("spl");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), confirmIx(p, RESOLUTION_STATE.APPROVED)]);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    const fee = releaseFee(p.amount);
    expect(fee).toBe(50_000n);
    expect(tokenBalance(w.svm, p.sellerAta!)).toBe(p.amount - fee);
    expect(tokenBalance(w.svm, w.spl.funds)).toBe(fee);
    expect(readEscrow(w, w.spl).feeBalance).toBe(fee);
  });

  it("waits for approval, or for expiry of an unrejected delivery", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.DeliveryNotSubmitted);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.ReleaseNotYetAvailable);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "release")]);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.PaymentNotFunded);
  });

  it("never releases a rejected delivery, and pays only the seller", async () => {
    const rejected = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(rejected), confirmIx(rejected, RESOLUTION_STATE.REJECTED)]);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, rejected, "release")]), E.DeliveryRejected);

    const p = await approved("sol");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release", p.buyer.address)]), E.InvalidRecipient);
    const spl = await approved("spl");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, spl, "release", spl.buyerAta)]), E.InvalidRecipient);
    // The keeper must sign (here someone else pays the transaction fee).
    expectCode(
      await send(w.svm, p.buyer, [withAccountRole(payoutIx(w, p, "release"), 0, AccountRole.WRITABLE)]),
      E.MissingSignature,
    );
  });
});

describe("SLA-Escrow stand-in: RefundPayment", () => {
  it("refunds the whole amount after expiry + refund cooldown when nothing was delivered", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.RefundNotYetAvailable);
    const expiresAt = readPayment(w, p).expiresAtUnixSeconds;
    setUnixTime(w.svm, expiresAt + CONFIG_DEFAULTS.refundCooldownSeconds - 1n);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.RefundNotYetAvailable);
    setUnixTime(w.svm, expiresAt + CONFIG_DEFAULTS.refundCooldownSeconds);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund")]);
    expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(p.amount);
    expect(readPayment(w, p).state).toBe(PAYMENT_STATE.REFUNDED);
    expect(readEscrow(w, w.sol)).toMatchObject({ feeBalance: 0n, tokenLiquidity: 0n });
  });

  it("refunds a rejected SPL delivery at once, to the buyer's token account only", async () => {
    const p = await funded("spl");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), confirmIx(p, RESOLUTION_STATE.REJECTED)]);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund", p.sellerAta)]), E.InvalidRecipient);
    const buyer0 = tokenBalance(w.svm, p.buyerAta!);
    await sendOk(w.svm, w.keeper, [payoutIx(w, p, "refund")]);
    expect(tokenBalance(w.svm, p.buyerAta!) - buyer0).toBe(p.amount);
    expect(tokenBalance(w.svm, w.spl.funds)).toBe(0n);
  });

  it("does not refund a delivered (or approved) payment", async () => {
    const p = await funded("sol");
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p)]);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + CONFIG_DEFAULTS.refundCooldownSeconds);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.DeliveryApproved);
  });
});

describe("SLA-Escrow stand-in: ExtendPaymentTTL and ClosePayment", () => {
  function extendIx(p: PaymentSetup, seconds: bigint, signer = p.buyer) {
    return getExtendPaymentTtlInstruction({ ...paymentAccounts(w, p), buyer: signer, additionalSeconds: seconds });
  }

  function closeIx(p: PaymentSetup, buyer: Address = p.buyer.address) {
    return getClosePaymentInstruction({ ...paymentAccounts(w, p), caller: w.keeper, buyer });
  }

  it("extends the TTL for the buyer only", async () => {
    const p = await funded("sol");
    const expiresAt = readPayment(w, p).expiresAtUnixSeconds;
    expectCode(await send(w.svm, w.keeper, [extendIx(p, 600n, p.seller)]), E.NotPaymentBuyer);
    expectCode(await send(w.svm, w.keeper, [extendIx(p, 0n)]), E.InvalidTtlExtension);
    await sendOk(w.svm, w.keeper, [extendIx(p, 600n)]);
    expect(readPayment(w, p).expiresAtUnixSeconds).toBe(expiresAt + 600n);
  });

  it("closes a settled payment after the closure delay and returns its rent to the buyer", async () => {
    const p = await funded("sol");
    expectCode(await send(w.svm, w.keeper, [closeIx(p)]), E.PaymentNotSettled);
    await sendOk(w.svm, w.keeper, [submitDeliveryIx(p), approveIx(p), payoutIx(w, p, "release")]);
    expectCode(await send(w.svm, w.keeper, [closeIx(p)]), E.CloseNotYetAvailable);
    setUnixTime(w.svm, now(w) + CONFIG_DEFAULTS.closureDelaySeconds);
    expectCode(await send(w.svm, w.keeper, [closeIx(p, p.seller.address)]), E.InvalidRecipient);
    const rent = lamportsOf(w.svm, p.payment);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    await sendOk(w.svm, w.keeper, [closeIx(p)]);
    expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(rent);
    expect(w.svm.getAccount(p.payment).exists).toBe(false);
  });
});
