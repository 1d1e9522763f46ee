import {
  type Address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  createTransactionMessage,
  decompileTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { findAssociatedTokenPda } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { getSetComputeUnitLimitInstruction } from "../../../../src/chain/compute-budget";
import { PAYMENT_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import {
  decodeFundPaymentInstructionData,
  getFundPaymentInstruction,
} from "../../../../src/rails/sla-escrow/program/instructions";
import { randomPaymentUid } from "../../../../src/rails/sla-escrow/program/payment-uid";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findEscrowSolStoragePda,
  findPaymentPda,
} from "../../../../src/rails/sla-escrow/program/pda";
import { chainRpc, fundedBuyer, lamportsOf, latestBlockhash, tokenBalance } from "../../../support/workerd/chain";
import { bodyFor, FEE_PAYER, memo, TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import {
  build,
  client,
  ESCROW_PROGRAM,
  escrowLine,
  hex32,
  ORACLE,
  paymentAccount,
  post,
  signedEscrowBody,
  TTL,
} from "../../../support/workerd/escrow-fixtures";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { DEVNET, NATIVE_SOL, RESOURCE, signAsBuyer, USDC } from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/*
 * The sla-escrow rail end to end on the local chain with the stand-in SLA-Escrow program: enrich → build (our HTTP
 * builder) → buyer signs → verify → settle → the Payment account holds the money. Each verify rule has a crafted
 * transaction that breaks only that rule. Shared helpers in ./escrow-fixtures.
 */

/** A FundPayment the way an attacker or a careless client might write it, buyer-paid, signed by the given signers. */
async function craftedFunding(
  line: Record<string, any>,
  buyer: KeyPairSigner,
  overrides: Partial<{
    seller: Address;
    amount: bigint;
    ttlSeconds: bigint;
    oracleAuthority: Address;
    extra: Instruction[];
    feePayer: Address;
    signers: KeyPairSigner[];
  }> = {},
) {
  const [bank] = await findBankPda(ESCROW_PROGRAM);
  const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
  const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
  const uid = randomPaymentUid();
  const [payment] = await findPaymentPda(ESCROW_PROGRAM, uid.bytes, bank);
  const [escrowAta] = await findAssociatedTokenPda({ owner: escrow, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  const [buyerAta] = await findAssociatedTokenPda({ owner: buyer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  const fund = getFundPaymentInstruction({
    programId: ESCROW_PROGRAM,
    bank,
    config,
    escrow,
    payment,
    kind: "spl",
    buyer: buyer.address,
    seller: overrides.seller ?? line.extra.merchantWallet,
    mint: USDC,
    escrowAta,
    buyerAta,
    tokenProgram: TOKEN_PROGRAM,
    oracleAuthority: overrides.oracleAuthority ?? ORACLE,
    paymentUid: uid.bytes,
    slaHash: crypto.getRandomValues(new Uint8Array(32)),
    amount: overrides.amount ?? BigInt(line.amount),
    ttlSeconds: overrides.ttlSeconds ?? BigInt(line.maxTimeoutSeconds),
  });
  const latest = await latestBlockhash();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(overrides.feePayer ?? buyer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) =>
      appendTransactionMessageInstructions(
        [getSetComputeUnitLimitInstruction(80_000), ...(overrides.extra ?? []), fund],
        m,
      ),
  );
  const signed = await partiallySignTransaction(
    (overrides.signers ?? [buyer]).map((s) => s.keyPair),
    compileTransaction(message),
  );
  return bodyFor(line, getBase64EncodedWireTransaction(signed));
}

describe("sla-escrow discovery", () => {
  it(
    "/supported lists the sla-escrow kind with the wire extra keys, and /capabilities turns the escrow features " +
      "on",
    async () => {
      const supported = await call("/supported");
      const kind = supported.body.kinds.find((k: { scheme: string }) => k.scheme === "sla-escrow");
      const [bank] = await findBankPda(ESCROW_PROGRAM);
      const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
      expect(kind).toMatchObject({
        x402Version: 2,
        network: DEVNET,
        extra: {
          feePayer: FEE_PAYER,
          bankAddress: bank,
          configAddress: config,
          escrowProgramId: ESCROW_PROGRAM,
          feeBps: "100",
          oracleFeeBps: "100",
          minFeeAmount: "100000",
          oracleAuthorities: [ORACLE],
          deliveryCutoffSeconds: "300",
          deliveryBudgetSeconds: "300",
          slaFundTxNetworkFeePayer: "buyer",
          merchantWallet: null,
          beneficiary: null,
        },
      });
      expect(supported.body.kinds[0].scheme).toBe("exact");
      const capabilities = await call("/capabilities");
      expect(capabilities.body.features).toMatchObject({ slaEscrow: true, unsignedSlaEscrowPaymentTxBuild: true });
      expect(capabilities.body.httpEndpoints.buildSlaEscrowPaymentTx).toMatchObject({ method: "POST" });
    },
  );

  it(
    "enrich points an sla-escrow line at the Escrow PDA, keeps the seller's extra and names the seller; never the " +
      "wallet as payTo",
    async () => {
      const seller = (await generateKeyPairSigner()).address;
      const response = await call("/payment-required/enrich", {
        method: "POST",
        json: {
          x402Version: 2,
          resource: RESOURCE,
          accepts: [
            {
              scheme: "sla-escrow",
              network: DEVNET,
              asset: USDC,
              amount: "1000000",
              payTo: seller,
              maxTimeoutSeconds: TTL,
              extra: { plan: "gold", feeBps: "1" },
            },
          ],
        },
      });
      expect(response.status).toBe(200);
      const [bank] = await findBankPda(ESCROW_PROGRAM);
      const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
      const line = response.body.accepts[0];
      expect(line.payTo).toBe(escrow);
      expect(line.payTo).not.toBe(seller);
      expect(line.extra).toMatchObject({
        plan: "gold",
        feeBps: "100",
        merchantWallet: seller,
        bankAddress: bank,
        escrowProgramId: ESCROW_PROGRAM,
        oracleAuthorities: [ORACLE],
      });

      // Enriching the enriched line changes nothing; a line paying the escrow without naming the seller is refused.
      const again = await call("/payment-required/enrich", {
        method: "POST",
        json: { x402Version: 2, resource: RESOURCE, accepts: [line] },
      });
      expect(again.body.accepts[0]).toEqual(line);
      const anonymous = await call("/payment-required/enrich", {
        method: "POST",
        json: { x402Version: 2, resource: RESOURCE, accepts: [{ ...line, extra: { plan: "gold" } }] },
      });
      expect(anonymous.status).toBe(400);
      expect(anonymous.body.error).toMatch(/must name the seller/);
    },
  );
});

describe("sla-escrow build → verify → settle on the local chain", () => {
  it(
    "USDC: the buyer-paid FundPayment has one signer and exactly the line's fields; it verifies, settles once and " +
      "escrows the amount",
    async () => {
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const seller = (await generateKeyPairSigner()).address;
      const line = await escrowLine(USDC, "1500000", seller);
      const { body, built } = await signedEscrowBody(buyer, line);

      expect(built).toMatchObject({
        feePayer: buyer.address,
        payer: buyer.address,
        signerPubkeys: [buyer.address],
        payerSignatureIndex: 0,
        slaFundTxNetworkFeePayer: "buyer",
        payTo: line.payTo,
        programId: ESCROW_PROGRAM,
      });
      expect(built.verifyBodyTemplate.paymentRequirements.scheme).toBe("sla-escrow");
      const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction));
      const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(decoded.messageBytes));
      const fund = message.instructions.at(-1)!;
      expect(fund.programAddress).toBe(ESCROW_PROGRAM);
      const fields = decodeFundPaymentInstructionData(fund.data!)!;
      expect(fields).toMatchObject({
        seller,
        mint: USDC,
        oracleAuthority: ORACLE,
        amount: 1_500_000n,
        ttlSeconds: BigInt(TTL),
      });
      expect(fund.accounts!.map((a) => a.address)).toContain(built.paymentPda);

      const verify = await post("/verify", body);
      expect(verify.body, JSON.stringify(verify.body)).toMatchObject({ isValid: true, payer: buyer.address });

      const iso = await isolatedFacilitator("escrow-usdc");
      const feePayerBefore = await lamportsOf(iso.feePayer);
      const buyerAta = (
        await findAssociatedTokenPda({ owner: buyer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM })
      )[0];
      const settle = await iso.post("/settle", body, { "X-Correlation-ID": "escrow-usdc-1" });
      expect(settle.body, JSON.stringify(settle.body)).toMatchObject({
        success: true,
        payer: buyer.address,
        network: DEVNET,
      });
      expect(await tokenBalance(buyerAta)).toBe(3_500_000n);
      // Buyer-paid: the facilitator paid nothing.
      expect(await lamportsOf(iso.feePayer)).toBe(feePayerBefore);
      const payment = await paymentAccount(built.paymentPda);
      expect(payment).toMatchObject({
        buyer: buyer.address,
        seller,
        mint: USDC,
        oracleAuthority: ORACLE,
        amount: 1_500_000n,
        state: PAYMENT_STATE.FUNDED,
      });

      const replay = await post("/settle", body);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
        transaction: settle.body.transaction,
      });
      const reverify = await post("/verify", body);
      expect(reverify.body.invalidReason).toBe("duplicate_settlement");
      expect(reverify.body.invalidMessage).toContain(settle.body.transaction);
      const record = await call(`/settlements/${settle.body.transaction}`);
      expect(record.body).toMatchObject({
        state: "confirmed",
        scheme: "sla-escrow",
        merchantWallet: seller,
        payTo: line.payTo,
      });
    },
  );

  it(
    "SOL: funds the escrow's SOL storage; a buyer who broadcast the funding itself still gets one settle " + "success",
    async () => {
      const buyer = await fundedBuyer(0, 2_000_000_000);
      const seller = (await generateKeyPairSigner()).address;
      const line = await escrowLine(NATIVE_SOL, "50000000", seller);
      const { body, built } = await signedEscrowBody(buyer, line);
      const [bank] = await findBankPda(ESCROW_PROGRAM);
      const [solStorage] = await findEscrowSolStoragePda(ESCROW_PROGRAM, NATIVE_SOL, bank, line.payTo);
      const storageBefore = await lamportsOf(solStorage);

      await chainRpc("sendTransaction", [
        body.paymentPayload.payload.transaction,
        { encoding: "base64", preflightCommitment: "confirmed" },
      ]);
      const settle = await post("/settle", body);
      expect(settle.body, JSON.stringify(settle.body)).toMatchObject({ success: true, payer: buyer.address });
      expect(await lamportsOf(solStorage)).toBe(storageBefore + 50_000_000n);
      expect(await paymentAccount(built.paymentPda)).toMatchObject({ amount: 50_000_000n, seller, mint: NATIVE_SOL });
    },
  );

  it("SOL: a buyer short of the amount is refused as insufficient SOL, before anything is sent", async () => {
    const buyer = await fundedBuyer(0, 20_000_000);
    const line = await escrowLine(NATIVE_SOL, "50000000", (await generateKeyPairSigner()).address);
    const { body } = await signedEscrowBody(buyer, line);
    const verified = await post("/verify", body);
    expect(verified.body, JSON.stringify(verified.body)).toMatchObject({
      isValid: false,
      invalidReason: "insufficient_funds",
    });
    expect(verified.body.invalidMessage).toMatch(/enough SOL/);
  });

  it("ten concurrent settles of one funding: exactly one success, the rest duplicates or pending", async () => {
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const line = await escrowLine(USDC, "1000000", (await generateKeyPairSigner()).address);
    const { body } = await signedEscrowBody(buyer, line);
    const results = await Promise.all(Array.from({ length: 10 }, () => post("/settle", body)));
    expect(results.filter((r) => r.body.success === true)).toHaveLength(1);
    for (const r of results.filter((r) => r.body.success !== true))
      expect(["duplicate_settlement", "settlement_pending"]).toContain(r.body.errorReason);
  });
});

describe("sla-escrow builder refusals", () => {
  it(
    "sponsorship: refused with 400 while the operator switch is off; with it on the facilitator is fee payer and " +
      "co-signs at settle",
    async () => {
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const line = await escrowLine(USDC, "1000000", (await generateKeyPairSigner()).address);
      const off = await build(buyer.address, line, { facilitatorPaysTransactionFees: true });
      expect(off.status).toBe(400);
      expect(off.body.error).toMatch(/SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP/);

      const sponsorOn = { SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: "yes" };
      const json = (body: unknown) => ({
        method: "POST",
        body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", ...client() },
      });
      const on = await callWithEnv(
        sponsorOn,
        "/build-sla-escrow-payment-tx",
        json({
          payer: buyer.address,
          accepted: line,
          slaHash: hex32(),
          oracleAuthority: ORACLE,
          facilitatorPaysTransactionFees: true,
        }),
      );
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      expect(on.body).toMatchObject({
        feePayer: FEE_PAYER,
        signerPubkeys: [FEE_PAYER, buyer.address],
        payerSignatureIndex: 1,
        slaFundTxNetworkFeePayer: "facilitator",
      });
      const body = on.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = await signAsBuyer(on.body.transaction, buyer);
      // The same sponsored funding is refused by a facilitator whose switch is off …
      const refused = await post("/verify", body);
      expect(refused.body.invalidReason).toBe("invalid_sla_escrow_payload_sponsorship_disabled");
      // … and settled (fee payer co-signs) where it is on.
      const settled = await callWithEnv(sponsorOn, "/settle", json(body));
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true, payer: buyer.address });
    },
  );

  it("refuses what the program or the rules would reject, before the buyer pays a fee", async () => {
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const seller = (await generateKeyPairSigner()).address;
    const line = await escrowLine(USDC, "1000000", seller);
    const cases: [Record<string, unknown>, Record<string, unknown>, RegExp][] = [
      [line, { oracleAuthority: seller }, /oracleAuthority: .* is not one of/],
      [{ ...line, maxTimeoutSeconds: 400 }, {}, /cover the delivery cutoff plus the delivery budget/],
      [{ ...line, payTo: seller }, {}, /is not the Escrow PDA/],
      [
        { ...line, extra: { ...line.extra, merchantWallet: line.payTo } },
        {},
        /not the Escrow PDA|must be the seller's wallet/,
      ],
      [{ ...line, extra: { ...line.extra, merchantWallet: undefined } }, {}, /beneficiary or extra.merchantWallet/],
      [{ ...line, amount: "1" }, {}, /outside the escrow's range|below the escrow's minimum fee/],
      [{ ...line, scheme: "exact" }, {}, /must be "sla-escrow"/],
      [line, { paymentUid: "ü-not-ascii" }, /must be ASCII/],
    ];
    for (const [accepted, more, message] of cases) {
      const response = await build(buyer.address, accepted, more);
      expect(response.status, JSON.stringify(accepted)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
    // The builder refuses with the reason /verify gives (escrow-terms.ts is shared), not a generic one.
    const tiny = await build(buyer.address, { ...line, amount: "1" }, {});
    expect(tiny.body.reason).toMatch(/^invalid_sla_escrow_amount_(out_of_range|below_minimum)$/);
  });
});

describe("sla-escrow verify: one crafted transaction per rule", () => {
  it(
    "a seller's own wallet funding its escrow, sponsored, is refused (self_payment) at /verify and /settle: " +
      "nothing sent, the fee payer untouched",
    async () => {
      // The builder refuses a buyer that is the seller, so the funding is hand-made: what a client could send anyway.
      const iso = await isolatedFacilitator("escrow-self-payment", {
        SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: "yes",
      });
      const seller = await fundedBuyer(5_000_000, 1_000_000_000);
      const line = await escrowLine(USDC, "1000000", seller.address);
      const own = await craftedFunding(line, seller, { feePayer: iso.feePayer });
      const sellerAta = (
        await findAssociatedTokenPda({ owner: seller.address, mint: USDC, tokenProgram: TOKEN_PROGRAM })
      )[0];
      const feePayerBefore = await lamportsOf(iso.feePayer);

      const verify = await iso.post("/verify", own);
      expect(verify.body, JSON.stringify(verify.body)).toMatchObject({
        isValid: false,
        invalidReason: "self_payment",
        payer: seller.address,
      });
      const settle = await iso.post("/settle", own);
      expect(settle.body, JSON.stringify(settle.body)).toMatchObject({ success: false, errorReason: "self_payment" });
      expect(settle.body.transaction ?? "").toBe("");
      expect(await lamportsOf(iso.feePayer)).toBe(feePayerBefore);
      expect(await tokenBalance(sellerAta)).toBe(5_000_000n);

      // The same funding from another buyer (the seller's line unchanged) is a payment the facilitator co-signs.
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const other = await iso.post("/verify", await craftedFunding(line, buyer, { feePayer: iso.feePayer }));
      expect(other.body, JSON.stringify(other.body)).toMatchObject({ isValid: true, payer: buyer.address });
    },
  );

  it("refuses each broken funding with its own reason, at no cost to the facilitator", async () => {
    const iso = await isolatedFacilitator("escrow-verify-rules");
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const seller = (await generateKeyPairSigner()).address;
    const line = await escrowLine(USDC, "1000000", seller);
    const stranger = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
    await chainRpc("requestAirdrop", [stranger.address, 100_000_000]);

    const baseline = await craftedFunding(line, buyer);
    expect((await post("/verify", baseline)).body, "the crafted baseline itself is valid").toMatchObject({
      isValid: true,
    });

    const cases: [Record<string, any>, string][] = [
      [await craftedFunding(line, buyer, { seller: stranger.address }), "invalid_sla_escrow_payload_seller_mismatch"],
      [await craftedFunding(line, buyer, { amount: 999_999n }), "invalid_sla_escrow_payload_amount_mismatch"],
      [await craftedFunding(line, buyer, { ttlSeconds: 7_200n }), "invalid_sla_escrow_payload_ttl_mismatch"],
      [await craftedFunding(line, buyer, { oracleAuthority: stranger.address }), "invalid_sla_escrow_payload_oracle"],
      [
        await craftedFunding(line, buyer, { extra: [memo("hello")] }),
        "invalid_sla_escrow_payload_unexpected_instruction",
      ],
      [
        await craftedFunding(line, buyer, {
          extra: [
            getTransferSolInstruction({
              source: createNoopSigner(iso.feePayer),
              destination: stranger.address,
              amount: 1n,
            }),
          ],
        }),
        "invalid_sla_escrow_payload_unexpected_instruction",
      ],
      [
        await craftedFunding(line, buyer, { feePayer: iso.feePayer }),
        "invalid_sla_escrow_payload_sponsorship_disabled",
      ],
      [
        await craftedFunding(line, buyer, { feePayer: stranger.address, signers: [stranger, buyer] }),
        "invalid_sla_escrow_payload_fee_payer",
      ],
      [
        bodyFor({ ...line, payTo: seller }, baseline.paymentPayload.payload.transaction),
        "invalid_sla_escrow_recipient_mismatch",
      ],
      [
        bodyFor(
          { ...line, extra: { ...line.extra, bankAddress: stranger.address } },
          baseline.paymentPayload.payload.transaction,
        ),
        "invalid_sla_escrow_bank_mismatch",
      ],
      [
        bodyFor(
          { ...line, extra: { ...line.extra, escrowProgramId: stranger.address } },
          baseline.paymentPayload.payload.transaction,
        ),
        "invalid_sla_escrow_program_mismatch",
      ],
    ];
    // An unsigned funding (the buyer's slot empty) is refused too.
    const unsigned = await craftedFunding(line, buyer, { signers: [] });
    cases.push([unsigned, "invalid_sla_escrow_payload_missing_signature"]);

    const feePayerBefore = await lamportsOf(iso.feePayer);
    for (const [body, reason] of cases) {
      const verify = await iso.post("/verify", body);
      expect(verify.body.invalidReason, `verify ${reason}`).toBe(reason);
      const settle = await iso.post("/settle", body);
      expect(settle.body.errorReason, `settle ${reason}`).toBe(reason);
    }
    expect(await lamportsOf(iso.feePayer)).toBe(feePayerBefore);
  });
});
