import { AccountRole, address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { SLA_ESCROW_STANDIN_LAYOUT as LAYOUT } from "../../../../localnet/programs/sla-escrow-layout";
import { RATE_LIMITS } from "../../../../src/http/middleware/rate-limit";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../src/rails/sla-escrow/cluster-defaults";
import { decodePayment, PAYMENT_STATE, RESOLUTION_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import {
  getFundPaymentInstruction,
  getFundPaymentV2Instruction,
  getSubmitDeliveryInstruction,
} from "../../../../src/rails/sla-escrow/program/instructions";
import { paymentUidToHex, randomPaymentUid } from "../../../../src/rails/sla-escrow/program/payment-uid";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findPaymentExtPda,
  findPaymentPda,
} from "../../../../src/rails/sla-escrow/program/pda";
import { decodeBuiltTransaction } from "../../../support/decode-transaction";
import { accountData, fundedBuyer, latestBlockhash, sendSigned, signAndSend } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { USDC } from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * SLA-Escrow lifecycle builders against the stand-in program on the local chain: every lifecycle transaction is
 * built by our HTTP builder and signed only by the party the program names. Funding still uses the instruction
 * builder directly (the /build-sla-escrow-payment-tx builder is not part of this branch yet).
 */
const ESCROW_PROGRAM = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
/** The stand-in's Config defaults (0 = no override) and a one-day arbitration window. */
const V2_DEFAULTS = {
  closureDelayOverrideSeconds: 0n,
  refundCooldownOverrideSeconds: 0n,
  deliveryCutoffOverrideSeconds: 0n,
  arbitrationWindowSeconds: 86_400n,
  minOracleTip: 0n,
};
const random32 = () => crypto.getRandomValues(new Uint8Array(32));

/** A USDC payment funded on chain by a fresh buyer for a fresh seller. */
async function fundedPayment(ttlSeconds = 3_600n, version: 1 | 2 = 1) {
  const buyer = await fundedBuyer(10_000_000);
  const seller = await fundedBuyer(0);
  const [bank] = await findBankPda(ESCROW_PROGRAM);
  const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
  const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
  const uid = randomPaymentUid();
  const [payment] = await findPaymentPda(ESCROW_PROGRAM, uid.bytes, bank);
  const [paymentExt] = await findPaymentExtPda(ESCROW_PROGRAM, uid.bytes, bank);
  const [escrowAta] = await findAssociatedTokenPda({ owner: escrow, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  const [buyerAta] = await findAssociatedTokenPda({ owner: buyer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  const accounts = { programId: ESCROW_PROGRAM, bank, config, escrow, payment };
  const fund = {
    ...accounts,
    kind: "spl" as const,
    buyer,
    seller: seller.address,
    mint: USDC,
    escrowAta,
    buyerAta,
    tokenProgram: TOKEN_PROGRAM,
    oracleAuthority: seller.address,
    paymentUid: uid.bytes,
    slaHash: random32(),
    amount: 2_000_000n,
    ttlSeconds,
  };
  await sendSigned(buyer, [
    version === 1
      ? getFundPaymentInstruction(fund)
      : getFundPaymentV2Instruction({ ...fund, ...V2_DEFAULTS, paymentExt }),
  ]);
  return { buyer, seller, accounts, paymentExt, uidHex: paymentUidToHex(uid.bytes) };
}

describe("SLA-Escrow lifecycle builders", () => {
  it("fund → submit delivery → approve, each built by our HTTP builder and signed only by its party", async () => {
    const { buyer, seller, accounts, uidHex } = await fundedPayment();
    const deliveryHash = random32();

    const delivery = await call("/build-sla-escrow-submit-delivery-tx", {
      method: "POST",
      json: { seller: seller.address, mint: USDC, paymentUidHex: uidHex, deliveryHash: hex(deliveryHash) },
    });
    expect(delivery.status, JSON.stringify(delivery.body)).toBe(200);
    expect(delivery.body).toMatchObject({
      feePayer: seller.address,
      payer: seller.address,
      signerPubkeys: [seller.address],
      payerSignatureIndex: 0,
      paymentUidHex: uidHex,
      paymentPda: accounts.payment,
      programId: ESCROW_PROGRAM,
      recentBlockhash: expect.any(String),
      recentBlockhashExpiresAt: expect.any(Number),
    });
    const decoded = decodeBuiltTransaction(delivery.body.transaction);
    expect(decoded.feePayer).toBe(seller.address);
    expect(decoded.signers).toEqual([seller.address]);
    expect(decoded.signatures).toEqual([null]);
    expect(decoded.instructions).toEqual([
      {
        programAddress: ESCROW_PROGRAM,
        accounts: [
          { address: seller.address, role: AccountRole.WRITABLE_SIGNER },
          { address: accounts.bank, role: AccountRole.READONLY },
          { address: accounts.config, role: AccountRole.READONLY },
          { address: accounts.escrow, role: AccountRole.READONLY },
          { address: accounts.payment, role: AccountRole.WRITABLE },
        ],
        data: Uint8Array.from([5, ...deliveryHash]),
      },
    ]);
    await signAndSend(delivery.body.transaction, [seller]);
    const delivered = decodePayment((await accountData(accounts.payment))!)!;
    expect(Uint8Array.from(delivered.deliveryHash)).toEqual(deliveryHash);
    expect(delivered.deliveryTimestampUnixSeconds).toBeGreaterThan(0n);

    const approve = await call("/build-sla-escrow-approve-tx", {
      method: "POST",
      json: { buyer: buyer.address, mint: USDC, paymentUidHex: uidHex, deliveryHash: hex(deliveryHash) },
    });
    expect(approve.status, JSON.stringify(approve.body)).toBe(200);
    expect(approve.body.signerPubkeys).toEqual([buyer.address]);
    const approveDecoded = decodeBuiltTransaction(approve.body.transaction);
    expect(approveDecoded.instructions[0]!.data).toEqual(Uint8Array.from([7, ...deliveryHash]));
    expect(approveDecoded.instructions[0]!.accounts[0]).toEqual({
      address: buyer.address,
      role: AccountRole.WRITABLE_SIGNER,
    });
    await signAndSend(approve.body.transaction, [buyer]);
    const approved = decodePayment((await accountData(accounts.payment))!)!;
    expect(approved.resolutionState).toBe(RESOLUTION_STATE.APPROVED);
    expect(approved.state).toBe(PAYMENT_STATE.FUNDED);
  });

  it("an explicit feePayer becomes account 0 and a second signer; the party keeps its own slot", async () => {
    const { seller, uidHex } = await fundedPayment();
    const sponsor = (await fundedBuyer(0)).address;
    const built = await call("/build-sla-escrow-submit-delivery-tx", {
      method: "POST",
      json: {
        seller: seller.address,
        mint: USDC,
        paymentUidHex: uidHex,
        deliveryHash: hex(random32()),
        feePayer: sponsor,
      },
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    expect(built.body).toMatchObject({
      feePayer: sponsor,
      payer: seller.address,
      signerPubkeys: [sponsor, seller.address],
      payerSignatureIndex: 1,
    });
    expect(decodeBuiltTransaction(built.body.transaction).feePayer).toBe(sponsor);
  });

  it("refuses what the program would reject, saying why", async () => {
    const { buyer, seller, uidHex } = await fundedPayment();
    const hash = hex(random32());
    const post = (path: string, json: unknown) => call(path, { method: "POST", json });

    const wrongSigner = await post("/build-sla-escrow-submit-delivery-tx", {
      seller: buyer.address,
      mint: USDC,
      paymentUidHex: uidHex,
      deliveryHash: hash,
    });
    expect(wrongSigner.status).toBe(400);
    expect(wrongSigner.body.error).toContain(`only the recorded seller ${seller.address}`);

    const approveTooEarly = await post("/build-sla-escrow-approve-tx", {
      buyer: buyer.address,
      mint: USDC,
      paymentUidHex: uidHex,
      deliveryHash: hash,
    });
    expect(approveTooEarly.status).toBe(400);
    expect(approveTooEarly.body.error).toContain("no delivery submitted");

    const sellerApproves = await post("/build-sla-escrow-approve-tx", {
      buyer: seller.address,
      mint: USDC,
      paymentUidHex: uidHex,
      deliveryHash: hash,
    });
    expect(sellerApproves.status).toBe(400);
    expect(sellerApproves.body.error).toContain(`only the recorded buyer ${buyer.address}`);

    const unknown = await post("/build-sla-escrow-approve-tx", {
      buyer: buyer.address,
      mint: USDC,
      paymentUidHex: hex(random32()),
      deliveryHash: hash,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain("no SLA-Escrow payment");

    const badHash = await post("/build-sla-escrow-approve-tx", {
      buyer: buyer.address,
      mint: USDC,
      paymentUidHex: uidHex,
      deliveryHash: "zz",
    });
    expect(badHash.status).toBe(400);
    expect(badHash.body.code).toBe("BAD_REQUEST");
  });

  it(
    "dispute: built for the buyer of a FundPaymentV2 payment and accepted by the program; refused for " + "others",
    async () => {
      const { buyer, seller, accounts, paymentExt, uidHex } = await fundedPayment(3_600n, 2);
      const reason = random32();
      const sellerTries = await call("/build-sla-escrow-dispute-tx", {
        method: "POST",
        json: { buyer: seller.address, mint: USDC, paymentUidHex: uidHex },
      });
      expect(sellerTries.status).toBe(400);
      expect(sellerTries.body.error).toContain(`only the recorded buyer ${buyer.address}`);

      const built = await call("/build-sla-escrow-dispute-tx", {
        method: "POST",
        json: { buyer: buyer.address, mint: USDC, paymentUidHex: uidHex, disputeReasonHash: hex(reason) },
      });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      expect(built.body).toMatchObject({
        signerPubkeys: [buyer.address],
        paymentExtPda: paymentExt,
        paymentPda: accounts.payment,
      });
      expect(decodeBuiltTransaction(built.body.transaction).instructions).toEqual([
        {
          programAddress: ESCROW_PROGRAM,
          accounts: [
            { address: buyer.address, role: AccountRole.WRITABLE_SIGNER },
            { address: accounts.bank, role: AccountRole.READONLY },
            { address: accounts.config, role: AccountRole.READONLY },
            { address: accounts.escrow, role: AccountRole.READONLY },
            { address: accounts.payment, role: AccountRole.WRITABLE },
            { address: paymentExt, role: AccountRole.WRITABLE },
          ],
          data: Uint8Array.from([11, ...reason]),
        },
      ]);
      await signAndSend(built.body.transaction, [buyer]);
      expect(decodePayment((await accountData(accounts.payment))!)!.state).toBe(LAYOUT.PAYMENT_STATE_DISPUTED);

      // Once disputed, the payment is no longer in a funded state: a second dispute is refused by our builder.
      const again = await call("/build-sla-escrow-dispute-tx", {
        method: "POST",
        json: { buyer: buyer.address, mint: USDC, paymentUidHex: uidHex },
      });
      expect(again.status).toBe(400);

      const v1 = await fundedPayment();
      const noExt = await call("/build-sla-escrow-dispute-tx", {
        method: "POST",
        json: { buyer: v1.buyer.address, mint: USDC, paymentUidHex: v1.uidHex },
      });
      expect(noExt.status).toBe(400);
      expect(noExt.body.error).toContain("without a PaymentExt");
    },
  );

  it("answers 501 for a mint the rail has no escrow for on this cluster", async () => {
    const { seller, uidHex } = await fundedPayment();
    const otherMint = (await fundedBuyer(0)).address;
    const built = await call("/build-sla-escrow-submit-delivery-tx", {
      method: "POST",
      json: { seller: seller.address, mint: otherMint, paymentUidHex: uidHex, deliveryHash: hex(random32()) },
    });
    expect(built.status).toBe(501);
    expect(built.body.code).toBe("NOT_IMPLEMENTED");
    expect(built.body.error).toContain("not configured");
  });

  it(
    "delivery after expires_at − delivery_cutoff: our builder refuses, and the program rejects it with " +
      "DeliveryTooLateForOracle",
    async () => {
      // ttl 60 s is below the Config's default 300 s cutoff: the delivery window is already closed at funding.
      const { seller, accounts, uidHex } = await fundedPayment(60n);
      const deliveryHash = random32();
      const refused = await call("/build-sla-escrow-submit-delivery-tx", {
        method: "POST",
        json: { seller: seller.address, mint: USDC, paymentUidHex: uidHex, deliveryHash: hex(deliveryHash) },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain("DeliveryTooLateForOracle");

      // Sent anyway (bypassing our 400), signed by the seller alone: the program's own rule refuses it.
      const lifetime = await latestBlockhash();
      const sent = sendSigned(seller, [getSubmitDeliveryInstruction({ ...accounts, seller, deliveryHash })], lifetime);
      await expect(sent).rejects.toThrow(/0x1b75|7029|DeliveryTooLateForOracle/);
      expect(decodePayment((await accountData(accounts.payment))!)!.deliveryTimestampUnixSeconds).toBe(0n);
    },
  );

  it("both builders count against the build rate limit: 429 with Retry-After", async () => {
    const headers = { "Content-Type": "application/json", "CF-Connecting-IP": `escrow-${crypto.randomUUID()}` };
    const answers: { status: number; headers: Headers; body: any }[] = [];
    let n = 0;
    while (answers.length < 3 * RATE_LIMITS.build.limit && !answers.some((a) => a.status === 429)) {
      const path = () => (n++ % 2 === 0 ? "/build-sla-escrow-submit-delivery-tx" : "/build-sla-escrow-approve-tx");
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 16 }, () => callWithEnv({}, path(), { method: "POST", headers, body: "{}" })),
        )),
      );
    }
    const admitted = answers.filter((a) => a.status !== 429);
    expect(admitted.length).toBeGreaterThanOrEqual(RATE_LIMITS.build.limit);
    expect(admitted.every((a) => a.status === 400)).toBe(true);
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.body.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("Retry-After"))).toBe(RATE_LIMITS.build.periodSeconds);
  });

  it("the routes are listed in /capabilities httpEndpoints and /openapi.json with their request bodies", async () => {
    const [spec, caps] = await Promise.all([call("http://facilitator.test/openapi.json"), call("/capabilities")]);
    expect(caps.body.httpEndpoints.buildSlaEscrowSubmitDeliveryTx).toEqual({
      method: "POST",
      path: "/api/v1/facilitator/build-sla-escrow-submit-delivery-tx",
    });
    expect(caps.body.httpEndpoints.buildSlaEscrowApproveTx).toEqual({
      method: "POST",
      path: "/api/v1/facilitator/build-sla-escrow-approve-tx",
    });
    const paths = Object.keys(spec.body.paths);
    for (const path of [
      "/build-sla-escrow-submit-delivery-tx",
      "/build-sla-escrow-approve-tx",
      "/build-sla-escrow-dispute-tx",
    ]) {
      const match = paths.find((p) => p.endsWith(path));
      expect(match, path).toBeDefined();
      expect(JSON.stringify(spec.body.paths[match!].post.requestBody)).toContain("paymentUidHex");
    }
  });
});
