/**
 * The SLA-Escrow stand-in's v0.5 flows with the facilitator's own builders: FundPaymentV2 and its
 * PaymentExt, mutual actions, disputes and ResolveWithSplit.
 *
 * Documented split (localnet/programs/README.md): the adjudicator's tip comes first,
 * tip = min(max(oracle_fee_bps × amount / 10,000, min_oracle_tip), amount); the rest is split by
 * seller_bps; the escrow fee (as on release) is taken from the seller's share only and stays in the
 * escrow; the PaymentExt is closed with its rent to the buyer.
 */
import { type Address, getAddressDecoder, type KeyPairSigner } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import { SLA_ESCROW_STANDIN_ERROR as E } from "../../localnet/programs/errors";
import { SLA_ESCROW_STANDIN_LAYOUT as LAYOUT } from "../../localnet/programs/sla-escrow-layout";
import { PAYMENT_STATE, RESOLUTION_STATE } from "../../src/rails/sla-escrow/program/accounts";
import {
  getAcceptMutualActionInstruction,
  getDisputePaymentInstruction,
  getProposeMutualActionInstruction,
  getResolveWithSplitInstruction,
  getSubmitDeliveryInstruction,
  MUTUAL_ACTION,
} from "../../src/rails/sla-escrow/program/instructions";
import {
  ataOf,
  dataOf,
  fundedSigner,
  lamportsOf,
  ownerOf,
  type SendResult,
  send,
  sendOk,
  setUnixTime,
  tokenBalance,
} from "./harness";
import {
  CONFIG_DEFAULTS,
  DELIVERY_HASH,
  FEE_BPS,
  fundIx,
  fundV2Ix,
  MIN_FEE_AMOUNT,
  newPayment,
  newSlaWorld,
  ORACLE_FEE_BPS,
  type PaymentSetup,
  paymentAccounts,
  payoutIx,
  RESOLUTION_HASH,
  readEscrow,
  readPayment,
  SLA_PROGRAM_ID,
  type SlaWorld,
  type V2Options,
} from "./sla-world";

const PAYMENT_EXT_SIZE = LAYOUT.PAYMENT_EXT_ACCOUNT_SIZE;
const PAYMENT_EXT_DISCRIMINATOR = LAYOUT.PAYMENT_EXT_DISCRIMINATOR;
const ZERO_HASH = new Uint8Array(32);

function bps(amount: bigint, rate: number | bigint): bigint {
  return (amount * BigInt(rate)) / 10_000n;
}

/** The documented ResolveWithSplit arithmetic, computed independently of the program. */
function expectedResolution(amount: bigint, sellerBps: number, minOracleTip = 0n) {
  const byRate = bps(amount, ORACLE_FEE_BPS);
  let tip = byRate > minOracleTip ? byRate : minOracleTip;
  if (tip > amount) tip = amount;
  const rest = amount - tip;
  const sellerGross = bps(rest, sellerBps);
  let fee = 0n;
  if (sellerGross > 0n) {
    fee = bps(sellerGross, FEE_BPS) > MIN_FEE_AMOUNT ? bps(sellerGross, FEE_BPS) : MIN_FEE_AMOUNT;
    if (fee > sellerGross) fee = sellerGross;
  }
  return { tip, fee, sellerNet: sellerGross - fee, buyerShare: rest - sellerGross };
}

function expectCode(result: SendResult, code: number): void {
  if (result.ok) throw new Error(`expected custom error ${code}, but the transaction succeeded`);
  expect(result.customCode, result.logs.join("\n")).toBe(code);
}

/** PaymentExt.adjudicator (stand-in layout). */
function adjudicatorOf(p: PaymentSetup): Address {
  const at = LAYOUT.PAYMENT_EXT_OFFSET.adjudicator;
  return getAddressDecoder().decode(dataOf(w.svm, p.paymentExt).slice(at, at + 32));
}

let w: SlaWorld;

async function fundedV2(kind: "sol" | "spl", v2: V2Options = {}, options: Parameters<typeof newPayment>[2] = {}) {
  const p = await newPayment(w, kind === "sol" ? w.sol : w.spl, options);
  await sendOk(w.svm, w.keeper, [fundV2Ix(w, p, v2)]);
  return p;
}

function extAccounts(p: PaymentSetup) {
  return { ...paymentAccounts(w, p), paymentExt: p.paymentExt };
}

function proposeIx(p: PaymentSetup, party: KeyPairSigner, action: number, value: bigint, pubkey: Address) {
  return getProposeMutualActionInstruction({ ...extAccounts(p), party, action, value, pubkey });
}

function acceptIx(p: PaymentSetup, party: KeyPairSigner, action: number, value: bigint, pubkey: Address) {
  return getAcceptMutualActionInstruction({ ...extAccounts(p), party, action, value, pubkey });
}

function disputeIx(p: PaymentSetup, signer: KeyPairSigner = p.buyer) {
  return getDisputePaymentInstruction({ ...extAccounts(p), buyer: signer, disputeReasonHash: RESOLUTION_HASH });
}

function deliverIx(p: PaymentSetup) {
  return getSubmitDeliveryInstruction({ ...paymentAccounts(w, p), seller: p.seller, deliveryHash: DELIVERY_HASH });
}

function resolveIx(
  p: PaymentSetup,
  sellerBps: number,
  adjudicator: KeyPairSigner = w.oracle,
  expected = DELIVERY_HASH,
) {
  const common = {
    ...extAccounts(p),
    adjudicator,
    seller: p.seller.address,
    buyer: p.buyer.address,
    sellerBps,
    reason: 3,
    resolutionHash: RESOLUTION_HASH,
    expectedDeliveryHash: expected,
  };
  if (p.escrow.kind === "sol")
    return getResolveWithSplitInstruction({ ...common, kind: "sol", solStorage: p.escrow.funds });
  return adjudicatorAtaOf(p, adjudicator).then((adjudicatorAta) =>
    getResolveWithSplitInstruction({
      ...common,
      kind: "spl",
      mint: p.escrow.mint,
      escrowAta: p.escrow.funds,
      sellerAta: p.sellerAta!,
      buyerAta: p.buyerAta!,
      adjudicatorAta,
      tokenProgram: p.escrow.token!.tokenProgram,
    }),
  );
}

function adjudicatorAtaOf(p: PaymentSetup, adjudicator: KeyPairSigner): Promise<Address> {
  return ataOf(p.escrow.token!, adjudicator.address);
}

beforeEach(async () => {
  w = await newSlaWorld();
});

describe("SLA-Escrow stand-in: FundPaymentV2", () => {
  it("creates the PaymentExt, marks the payment funded-extended and applies positive overrides", async () => {
    const p = await newPayment(w, w.sol);
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    await sendOk(w.svm, w.keeper, [
      fundV2Ix(w, p, {
        closureDelayOverrideSeconds: 100n,
        refundCooldownOverrideSeconds: 0n,
        deliveryCutoffOverrideSeconds: 120n,
      }),
    ]);
    const rent =
      w.svm.minimumBalanceForRentExemption(384n) + w.svm.minimumBalanceForRentExemption(BigInt(PAYMENT_EXT_SIZE));
    expect(buyer0 - lamportsOf(w.svm, p.buyer.address)).toBe(p.amount + rent);
    expect(ownerOf(w.svm, p.paymentExt)).toBe(SLA_PROGRAM_ID);
    const ext = dataOf(w.svm, p.paymentExt);
    expect(ext.length).toBe(PAYMENT_EXT_SIZE);
    expect(ext[0]).toBe(PAYMENT_EXT_DISCRIMINATOR);
    expect(adjudicatorOf(p)).toBe(w.oracle.address);
    expect(readPayment(w, p)).toMatchObject({
      state: PAYMENT_STATE.FUNDED_EXTENDED,
      closureDelaySeconds: 100n,
      refundCooldownSeconds: CONFIG_DEFAULTS.refundCooldownSeconds,
      deliveryCutoffSeconds: 120n,
    });
  });

  it("refuses a PaymentExt that is not PDA(payment_ext, uid, bank), and double funding", async () => {
    const p = await newPayment(w, w.sol);
    const other = await newPayment(w, w.sol);
    expectCode(await send(w.svm, w.keeper, [fundV2Ix(w, { ...p, paymentExt: other.paymentExt })]), E.InvalidPaymentExt);
    await sendOk(w.svm, w.keeper, [fundV2Ix(w, p)]);
    expectCode(await send(w.svm, w.keeper, [fundV2Ix(w, p)]), E.PaymentAlreadyExists);
  });
});

describe("SLA-Escrow stand-in: mutual actions", () => {
  it("rotates the adjudicator when the seller proposes and the buyer accepts", async () => {
    const p = await fundedV2("sol");
    const newAdjudicator = await fundedSigner(w.svm, 1n);
    const rotate = MUTUAL_ACTION.ROTATE_ADJUDICATOR;
    expectCode(
      await send(w.svm, w.keeper, [acceptIx(p, p.buyer, rotate, 0n, newAdjudicator.address)]),
      E.NoPendingProposal,
    );
    await sendOk(w.svm, w.keeper, [proposeIx(p, p.seller, rotate, 0n, newAdjudicator.address)]);
    expectCode(
      await send(w.svm, w.keeper, [acceptIx(p, p.seller, rotate, 0n, newAdjudicator.address)]),
      E.CannotAcceptOwnProposal,
    );
    expectCode(await send(w.svm, w.keeper, [acceptIx(p, p.buyer, rotate, 0n, p.buyer.address)]), E.ProposalMismatch);
    await sendOk(w.svm, w.keeper, [acceptIx(p, p.buyer, rotate, 0n, newAdjudicator.address)]);
    expect(adjudicatorOf(p)).toBe(newAdjudicator.address);

    // Only the new adjudicator can resolve now.
    await sendOk(w.svm, w.keeper, [deliverIx(p)]);
    expectCode(await send(w.svm, w.keeper, [await resolveIx(p, 5_000)]), E.NotAdjudicator);
    await sendOk(w.svm, w.keeper, [await resolveIx(p, 5_000, newAdjudicator)]);
  });

  it("extends the TTL by agreement", async () => {
    const p = await fundedV2("sol");
    const expiresAt = readPayment(w, p).expiresAtUnixSeconds;
    const extend = MUTUAL_ACTION.EXTEND_TTL;
    await sendOk(w.svm, w.keeper, [proposeIx(p, p.buyer, extend, 1_000n, p.buyer.address)]);
    await sendOk(w.svm, w.keeper, [acceptIx(p, p.seller, extend, 1_000n, p.buyer.address)]);
    expect(readPayment(w, p).expiresAtUnixSeconds).toBe(expiresAt + 1_000n);
  });

  it("accepts only the payment's parties, known actions and V2 payments", async () => {
    const p = await fundedV2("sol");
    const stranger = await fundedSigner(w.svm, 1n);
    expectCode(
      await send(w.svm, w.keeper, [proposeIx(p, stranger, MUTUAL_ACTION.EXTEND_TTL, 10n, stranger.address)]),
      E.NotPaymentParty,
    );
    expectCode(await send(w.svm, w.keeper, [proposeIx(p, p.buyer, 3, 10n, p.buyer.address)]), E.InvalidMutualAction);
    expectCode(
      await send(w.svm, w.keeper, [proposeIx(p, p.buyer, MUTUAL_ACTION.EXTEND_TTL, 0n, p.buyer.address)]),
      E.InvalidMutualAction,
    );
    const v1 = await newPayment(w, w.sol);
    await sendOk(w.svm, w.keeper, [fundIx(w, v1)]);
    expectCode(
      await send(w.svm, w.keeper, [proposeIx(v1, v1.buyer, MUTUAL_ACTION.EXTEND_TTL, 10n, v1.buyer.address)]),
      E.InvalidPaymentExt,
    );
  });
});

describe("SLA-Escrow stand-in: DisputePayment", () => {
  it("blocks delivery, release and refund until the adjudicator resolves", async () => {
    const p = await fundedV2("sol");
    await sendOk(w.svm, w.keeper, [deliverIx(p)]);
    expectCode(await send(w.svm, w.keeper, [disputeIx(p, p.seller)]), E.NotPaymentBuyer);
    await sendOk(w.svm, w.keeper, [disputeIx(p)]);
    expect(readPayment(w, p).state).toBe(LAYOUT.PAYMENT_STATE_DISPUTED);
    expectCode(await send(w.svm, w.keeper, [disputeIx(p)]), E.PaymentDisputed);
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + 10_000n);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "release")]), E.PaymentDisputed);
    expectCode(await send(w.svm, w.keeper, [payoutIx(w, p, "refund")]), E.PaymentDisputed);
    await sendOk(w.svm, w.keeper, [await resolveIx(p, 10_000)]);
    expect(readPayment(w, p).state).toBe(PAYMENT_STATE.RELEASED);
  });

  it("closes the dispute window at expires_at + arbitration_window_seconds", async () => {
    const p = await fundedV2("sol", { arbitrationWindowSeconds: 600n });
    setUnixTime(w.svm, readPayment(w, p).expiresAtUnixSeconds + 601n);
    expectCode(await send(w.svm, w.keeper, [disputeIx(p)]), E.DisputeWindowClosed);
  });

  it("is not available for V1 payments (no PaymentExt)", async () => {
    const p = await newPayment(w, w.sol);
    await sendOk(w.svm, w.keeper, [fundIx(w, p)]);
    expectCode(await send(w.svm, w.keeper, [disputeIx(p)]), E.InvalidPaymentExt);
  });
});

describe("SLA-Escrow stand-in: ResolveWithSplit", () => {
  it("splits a SOL payment: tip to the adjudicator, fee on the seller's share, the rest to the buyer", async () => {
    const p = await fundedV2("sol");
    await sendOk(w.svm, w.keeper, [deliverIx(p), disputeIx(p)]);
    const before = {
      seller: lamportsOf(w.svm, p.seller.address),
      buyer: lamportsOf(w.svm, p.buyer.address),
      oracle: lamportsOf(w.svm, w.oracle.address),
      storage: lamportsOf(w.svm, w.sol.funds),
      extRent: lamportsOf(w.svm, p.paymentExt),
    };
    await sendOk(w.svm, w.keeper, [await resolveIx(p, 7_000)]);
    const split = expectedResolution(p.amount, 7_000);
    expect(split).toEqual({ tip: 5_000_000n, fee: 6_965_000n, sellerNet: 689_535_000n, buyerShare: 298_500_000n });
    expect(lamportsOf(w.svm, p.seller.address) - before.seller).toBe(split.sellerNet);
    expect(lamportsOf(w.svm, p.buyer.address) - before.buyer).toBe(split.buyerShare + before.extRent);
    expect(lamportsOf(w.svm, w.oracle.address) - before.oracle).toBe(split.tip);
    expect(before.storage - lamportsOf(w.svm, w.sol.funds)).toBe(p.amount - split.fee);
    expect(readEscrow(w, w.sol)).toMatchObject({ feeBalance: split.fee, tokenLiquidity: 0n });
    expect(w.svm.getAccount(p.paymentExt).exists).toBe(false);
    const payment = readPayment(w, p);
    expect(payment).toMatchObject({
      state: PAYMENT_STATE.RELEASED,
      resolutionState: RESOLUTION_STATE.APPROVED,
      resolutionReason: 3,
    });
    expect(payment.resolutionHash).toEqual(RESOLUTION_HASH);
  });

  it("refunds everything but the tip at seller_bps 0", async () => {
    const p = await fundedV2("sol", { minOracleTip: 7_000_000n });
    const buyer0 = lamportsOf(w.svm, p.buyer.address);
    const extRent = lamportsOf(w.svm, p.paymentExt);
    await sendOk(w.svm, w.keeper, [await resolveIx(p, 0, w.oracle, ZERO_HASH)]);
    const split = expectedResolution(p.amount, 0, 7_000_000n);
    expect(split).toEqual({ tip: 7_000_000n, fee: 0n, sellerNet: 0n, buyerShare: 993_000_000n });
    expect(lamportsOf(w.svm, p.buyer.address) - buyer0).toBe(split.buyerShare + extRent);
    expect(readPayment(w, p)).toMatchObject({
      state: PAYMENT_STATE.REFUNDED,
      resolutionState: RESOLUTION_STATE.REJECTED,
    });
  });

  it("splits an SPL payment, creating missing token accounts for the seller and the adjudicator", async () => {
    const p = await fundedV2("spl", { minOracleTip: 100_000n }, { noSellerAta: true });
    await sendOk(w.svm, w.keeper, [deliverIx(p)]);
    const buyer0 = tokenBalance(w.svm, p.buyerAta!);
    await sendOk(w.svm, w.keeper, [await resolveIx(p, 2_500)]);
    const split = expectedResolution(p.amount, 2_500, 100_000n);
    expect(split).toEqual({ tip: 100_000n, fee: 12_250n, sellerNet: 1_212_750n, buyerShare: 3_675_000n });
    expect(tokenBalance(w.svm, p.sellerAta!)).toBe(split.sellerNet);
    expect(tokenBalance(w.svm, p.buyerAta!) - buyer0).toBe(split.buyerShare);
    expect(tokenBalance(w.svm, await adjudicatorAtaOf(p, w.oracle))).toBe(split.tip);
    expect(tokenBalance(w.svm, w.spl.funds)).toBe(split.fee);
    expect(readEscrow(w, w.spl).feeBalance).toBe(split.fee);
  });

  it("refuses a split above 10,000 bps, the wrong delivery hash, the wrong adjudicator and V1 payments", async () => {
    const p = await fundedV2("sol");
    await sendOk(w.svm, w.keeper, [deliverIx(p)]);
    expectCode(await send(w.svm, w.keeper, [await resolveIx(p, 10_001)]), E.InvalidSplit);
    expectCode(await send(w.svm, w.keeper, [await resolveIx(p, 5_000, w.oracle, ZERO_HASH)]), E.DeliveryHashMismatch);
    expectCode(await send(w.svm, w.keeper, [await resolveIx(p, 5_000, p.buyer)]), E.NotAdjudicator);

    const v1 = await newPayment(w, w.sol);
    await sendOk(w.svm, w.keeper, [fundIx(w, v1)]);
    expectCode(await send(w.svm, w.keeper, [await resolveIx(v1, 5_000, w.oracle, ZERO_HASH)]), E.InvalidPaymentExt);
  });
});
