import { type Address, createKeyPairSignerFromBytes, type Instruction } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { PAYMENT_STATE, RESOLUTION_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import { getConfirmOracleInstruction } from "../../../../src/rails/sla-escrow/program/instructions";
import {
  buildClosePaymentInstruction,
  buildPayoutInstruction,
} from "../../../../src/rails/sla-escrow/program/payout-instructions";
import { findBankPda, findEscrowConfigPda, findEscrowPda } from "../../../../src/rails/sla-escrow/program/pda";
import { LOCAL_ORACLE } from "../../../support/keys";
import {
  chainRpc,
  fundedBuyer,
  latestBlockhash,
  sendSigned,
  signAndSend,
  tokenBalance,
} from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import {
  ESCROW_PROGRAM,
  escrowLine,
  hex32,
  paymentAccount,
  post,
  signedEscrowBody,
} from "../../../support/workerd/escrow-fixtures";
import {
  deliverAndApprove,
  itemsFor,
  type KeeperReport,
  OPERATOR_AUTH,
  ORACLE_TIP,
  PAYMENT_AMOUNT,
  RELEASE_FEE,
} from "../../../support/workerd/escrow-keeper";
import { USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { call } from "../../../support/workerd/worker-http";

/**
 * The escrow keeper on the local chain with the stand-in SLA-Escrow program: payments funded and settled through
 * our HTTP surface are watched, then released or refunded by POST /escrow-keeper (the Cron Trigger runs the same
 * engine) exactly once, paid by the facilitator as keeper.
 */

async function keeper(body: Record<string, unknown> = {}) {
  const response = await call("/escrow-keeper", { method: "POST", json: body, headers: OPERATOR_AUTH });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as KeeperReport;
}

/**
 * A USDC escrow payment funded and settled through our builder and /settle; the seller already holds a USDC account.
 */
async function settledPayment(sellerHasTokenAccount = true) {
  const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
  const seller = await fundedBuyer(sellerHasTokenAccount ? 1 : 0, 100_000_000);
  const line = await escrowLine(USDC, PAYMENT_AMOUNT.toString(), seller.address);
  const { body, built } = await signedEscrowBody(buyer, line);
  const settle = await post("/settle", body);
  expect(settle.body, JSON.stringify(settle.body)).toMatchObject({ success: true });
  return { buyer, seller, payment: built.paymentPda as Address, uidHex: built.paymentUidHex as string };
}

/** The local oracle signs ConfirmOracle (it pays its own network fee), naming the submitted delivery. */
async function oracleVerdict(p: Awaited<ReturnType<typeof settledPayment>>, deliveryHash: string, state: number) {
  const oracle = await createKeyPairSignerFromBytes(LOCAL_ORACLE.secretKey);
  await chainRpc("requestAirdrop", [oracle.address, 100_000_000]);
  const [bank] = await findBankPda(ESCROW_PROGRAM);
  const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
  const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
  const verdict = getConfirmOracleInstruction({
    programId: ESCROW_PROGRAM,
    bank,
    config,
    escrow,
    payment: p.payment,
    oracle,
    deliveryHash: Uint8Array.from(deliveryHash.match(/../g)!, (byte) => parseInt(byte, 16)),
    resolutionHash: crypto.getRandomValues(new Uint8Array(32)),
    reason: 1,
    state,
  });
  await sendSigned(oracle, [verdict]);
}

describe("escrow keeper", () => {
  it("refuses anonymous callers", async () => {
    const response = await call("/escrow-keeper", { method: "POST", json: { dryRun: true } });
    expect(response.status).toBe(401);
  });

  it(
    "fund → deliver → approve → released once by two concurrent keeper runs; a dry run before sends " + "nothing",
    async () => {
      const p = await settledPayment();
      const waiting = itemsFor(await keeper({ dryRun: true }), p.payment);
      expect(waiting).toEqual([expect.objectContaining({ decision: "wait", action: "none", signature: null })]);

      await deliverAndApprove(p);
      const sellerAta = await usdcAccountOf(p.seller.address);
      const oracleAta = await usdcAccountOf(LOCAL_ORACLE.address as Address);
      const before = await tokenBalance(sellerAta);
      const oracleBefore = await tokenBalance(oracleAta);
      const dry = itemsFor(await keeper({ dryRun: true }), p.payment);
      expect(dry).toEqual([
        expect.objectContaining({
          decision: "release",
          action: "release",
          signature: null,
          outcome: "planned",
          detail: "would release",
        }),
      ]);
      expect((await paymentAccount(p.payment))?.state).toBe(PAYMENT_STATE.FUNDED);

      const runs = await Promise.all([keeper(), keeper()]);
      const released = runs
        .flatMap((run) => itemsFor(run, p.payment))
        .filter((i) => i.outcome === "landed" && i.action === "release");
      expect(released).toHaveLength(1);
      // The report counts what landed by value: each run's count is its released items, and one run released this one.
      for (const run of runs)
        expect(run.released).toBe(run.items.filter((i) => i.outcome === "landed" && i.action === "release").length);
      expect(runs.reduce((n, run) => n + run.released, 0)).toBeGreaterThanOrEqual(1);
      expect(await tokenBalance(sellerAta)).toBe(before + PAYMENT_AMOUNT - ORACLE_TIP - RELEASE_FEE);
      expect(await tokenBalance(oracleAta)).toBe(oracleBefore + ORACLE_TIP);
      expect(await paymentAccount(p.payment)).toMatchObject({ state: PAYMENT_STATE.RELEASED });

      // Settled: later runs leave it alone until its closed_at (a day away here), when they close it.
      expect(itemsFor(await keeper({ dryRun: true }), p.payment)).toEqual([]);
    },
  );

  it(
    "fund → deliver → the oracle approves → the keeper releases: seller, oracle tip and escrow fee to the " + "unit",
    async () => {
      const p = await settledPayment();
      const deliveryHash = hex32();
      const delivery = await post("/build-sla-escrow-submit-delivery-tx", {
        seller: p.seller.address,
        mint: USDC,
        paymentUidHex: p.uidHex,
        deliveryHash,
      });
      await signAndSend(delivery.body.transaction, [p.seller]);
      await oracleVerdict(p, deliveryHash, RESOLUTION_STATE.APPROVED);
      const sellerAta = await usdcAccountOf(p.seller.address);
      const oracleAta = await usdcAccountOf(LOCAL_ORACLE.address as Address);
      const [seller0, oracle0] = [await tokenBalance(sellerAta), await tokenBalance(oracleAta)];

      expect(itemsFor(await keeper(), p.payment)).toEqual([
        expect.objectContaining({ action: "release", outcome: "landed", detail: "released" }),
      ]);
      expect(await tokenBalance(sellerAta)).toBe(seller0 + PAYMENT_AMOUNT - ORACLE_TIP - RELEASE_FEE);
      expect(await tokenBalance(oracleAta)).toBe(oracle0 + ORACLE_TIP);
      // The rest of the amount, the escrow fee, stays with the escrow: the Payment records the payout as released.
      expect(await paymentAccount(p.payment)).toMatchObject({
        state: PAYMENT_STATE.RELEASED,
        resolutionState: RESOLUTION_STATE.APPROVED,
      });
    },
  );

  it("extended (v0.5) payment, with the keeper's builders: released with the PaymentExt tail and the tip, closed " +
    "after closed_at, rents to the buyer", async () => {
    // FundPaymentV2 fundings are the buyer's own transactions (never settled through /settle), so the keeper does not
    // watch them; this runs the same payout and close builders the keeper uses, signed by a third party.
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const seller = await fundedBuyer(1, 100_000_000);
    const caller = await fundedBuyer(0, 100_000_000);
    const funding = await post("/build-sla-escrow-payment-v2-tx", {
      buyer: buyer.address,
      seller: seller.address,
      mint: USDC,
      amount: PAYMENT_AMOUNT.toString(),
      ttlSeconds: "3600",
      slaHash: hex32(),
      oracleAuthority: LOCAL_ORACLE.address,
      closureDelayOverride: "1", // closed_at = settlement + 1 s, so the close comes within this test
      refundCooldownOverride: "0",
      deliveryCutoffOverride: "0",
      arbitrationWindowSeconds: "0",
    });
    expect(funding.status, JSON.stringify(funding.body)).toBe(200);
    await signAndSend(funding.body.transaction, [buyer]);
    const p = {
      buyer,
      seller,
      payment: funding.body.paymentPda as Address,
      uidHex: funding.body.paymentUidHex as string,
    };
    expect(await paymentAccount(p.payment)).toMatchObject({ state: PAYMENT_STATE.FUNDED_EXTENDED });

    const deliveryHash = hex32();
    const delivery = await post("/build-sla-escrow-submit-delivery-tx", {
      seller: seller.address,
      mint: USDC,
      paymentUidHex: p.uidHex,
      deliveryHash,
    });
    await signAndSend(delivery.body.transaction, [seller]);
    await oracleVerdict(p, deliveryHash, RESOLUTION_STATE.APPROVED);

    const paymentExt = funding.body.paymentExtPda as string;
    const lamports = async (address: string) => (await chainRpc<{ value: number }>("getBalance", [address])).value;
    const rent = async (address: string) =>
      (await chainRpc<{ value: { lamports: number } | null }>("getAccountInfo", [address, { encoding: "base64" }]))
        .value?.lamports ?? 0;
    const sellerAta = await usdcAccountOf(seller.address);
    const oracleAta = await usdcAccountOf(LOCAL_ORACLE.address as Address);
    const [seller0, oracle0, buyer0] = [
      await tokenBalance(sellerAta),
      await tokenBalance(oracleAta),
      await lamports(buyer.address),
    ];
    const extRent = await rent(paymentExt);
    expect(extRent).toBeGreaterThan(0);

    const sendAs = (instruction: Instruction) => sendSigned(caller, [instruction], lifetime);
    let lifetime = await latestBlockhash();
    const facts = {
      programId: ESCROW_PROGRAM,
      caller,
      paymentAddress: p.payment,
      payment: (await paymentAccount(p.payment))!,
      tokenProgram: TOKEN_PROGRAM,
    };
    await sendAs((await buildPayoutInstruction("release", facts)).instruction);
    expect(await tokenBalance(sellerAta)).toBe(seller0 + PAYMENT_AMOUNT - ORACLE_TIP - RELEASE_FEE);
    expect(await tokenBalance(oracleAta)).toBe(oracle0 + ORACLE_TIP);
    expect(await paymentAccount(p.payment)).toMatchObject({ state: PAYMENT_STATE.RELEASED });
    expect(await rent(paymentExt)).toBe(0);
    expect(await lamports(buyer.address)).toBe(buyer0 + extRent);

    // closed_at (release + 1 s) passes on the chain clock, which follows the wall clock; then anyone may close it.
    const paymentRent = await rent(p.payment);
    const buyer1 = await lamports(buyer.address);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    lifetime = await latestBlockhash();
    await sendAs(await buildClosePaymentInstruction({ ...facts, payment: (await paymentAccount(p.payment))! }));
    expect(await paymentAccount(p.payment)).toBeNull();
    expect(await lamports(buyer.address)).toBe(buyer1 + paymentRent);
  }, 30_000);

  it(
    "a delivery the oracle rejects → the keeper refunds the buyer, less the oracle's tip, which the oracle " +
      "receives",
    async () => {
      const p = await settledPayment();
      const buyerAta = await usdcAccountOf(p.buyer.address);
      const oracleAta = await usdcAccountOf(LOCAL_ORACLE.address as Address);
      const afterFunding = await tokenBalance(buyerAta);
      const oracleBefore = await tokenBalance(oracleAta);
      const deliveryHash = hex32();
      const delivery = await post("/build-sla-escrow-submit-delivery-tx", {
        seller: p.seller.address,
        mint: USDC,
        paymentUidHex: p.uidHex,
        deliveryHash,
      });
      await signAndSend(delivery.body.transaction, [p.seller]);

      await oracleVerdict(p, deliveryHash, RESOLUTION_STATE.REJECTED);
      expect((await paymentAccount(p.payment))?.resolutionState).toBe(RESOLUTION_STATE.REJECTED);

      const run = itemsFor(await keeper(), p.payment);
      expect(run).toEqual([expect.objectContaining({ action: "refund", outcome: "landed", detail: "refunded" })]);
      expect(await tokenBalance(buyerAta)).toBe(afterFunding + PAYMENT_AMOUNT - ORACLE_TIP);
      expect(await tokenBalance(oracleAta)).toBe(oracleBefore + ORACLE_TIP);
      expect(await paymentAccount(p.payment)).toMatchObject({ state: PAYMENT_STATE.REFUNDED });
    },
  );

  it(
    "does not pay a recipient's token-account rent: a release to a seller without a USDC account waits and says " +
      "why",
    async () => {
      const p = await settledPayment(false);
      await deliverAndApprove(p);
      const run = itemsFor(await keeper(), p.payment);
      expect(run).toEqual([
        expect.objectContaining({
          decision: "release",
          signature: null,
          outcome: "skipped",
          detail: expect.stringMatching(/recipient token account .* does not exist yet/),
        }),
      ]);
      expect((await paymentAccount(p.payment))?.state).toBe(PAYMENT_STATE.FUNDED);
    },
  );
});
