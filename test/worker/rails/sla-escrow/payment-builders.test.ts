import {
  AccountRole,
  type Address,
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
} from "../../../../src/chain/token-programs";
import { RATE_LIMITS } from "../../../../src/http/middleware/rate-limit";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../src/rails/sla-escrow/cluster-defaults";
import { decodePayment, PAYMENT_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import { parsePaymentUidHex } from "../../../../src/rails/sla-escrow/program/payment-uid";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findPaymentExtPda,
  findPaymentPda,
} from "../../../../src/rails/sla-escrow/program/pda";
import { decodeBuiltTransaction } from "../../../support/decode-transaction";
import { fundPaymentV2Data, resolveWithSplitData } from "../../../support/instruction-data";
import { LOCAL_ORACLE } from "../../../support/keys";
import { accountData, chainRpc, fundedBuyer, signAndSend, tokenBalance } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { USDC } from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * The SLA-Escrow payment builders (FundPaymentV2, mutual actions, ResolveWithSplit) and /build-refund-tx against the
 * stand-in program on the local chain: each built transaction is decoded field by field, signed only by the party the
 * spec names, and sent; the chain's accounts show the effect.
 */
const ESCROW_PROGRAM = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
const ORACLE = address(LOCAL_ORACLE.address);
const hex = (bytes: ArrayLike<number>) =>
  Array.from(bytes as ArrayLike<number>, (b) => b.toString(16).padStart(2, "0")).join("");
const random32 = () => crypto.getRandomValues(new Uint8Array(32));
const ZERO_HASH = "0".repeat(64);
let ip = 0;
const client = () => ({ "CF-Connecting-IP": `10.88.${Math.floor(ip / 250)}.${ip++ % 250}` });
const post = (path: string, json: unknown) => call(path, { method: "POST", json, headers: client() });

/** Each body, sent to `route`, is refused with 400 and an error that names its reason. */
async function expectRefusals(route: string, cases: [Record<string, unknown>, RegExp][]) {
  for (const [json, reason] of cases) {
    const refused = await post(route, json);
    expect(refused.status, JSON.stringify(json)).toBe(400);
    expect(refused.body.error, JSON.stringify(json)).toMatch(reason);
  }
}

async function oracleSigner(): Promise<KeyPairSigner> {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(LOCAL_ORACLE.secretKey.slice(0, 32));
  await chainRpc("requestAirdrop", [signer.address, 1_000_000_000]);
  return signer;
}

/** USDC held by `owner`'s associated token account (0 when it has none). */
async function usdcOf(owner: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  return (await accountData(ata)) === null ? 0n : tokenBalance(ata);
}
const paymentState = async (payment: Address) => decodePayment((await accountData(payment))!)!;

async function escrowAddresses(uidHex: string) {
  const uid = parsePaymentUidHex(uidHex)!;
  const [bank] = await findBankPda(ESCROW_PROGRAM);
  const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
  const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
  const [payment] = await findPaymentPda(ESCROW_PROGRAM, uid, bank);
  const [paymentExt] = await findPaymentExtPda(ESCROW_PROGRAM, uid, bank);
  const [escrowAta] = await findAssociatedTokenPda({ owner: escrow, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  return { bank, config, escrow, payment, paymentExt, escrowAta };
}

function v2Body(buyer: Address, seller: Address, more: Record<string, unknown> = {}) {
  return {
    buyer,
    seller,
    mint: USDC,
    amount: "2000000",
    ttlSeconds: 3_600,
    slaHash: hex(random32()),
    oracleAuthority: ORACLE,
    closureDelayOverride: 0,
    refundCooldownOverride: 0,
    deliveryCutoffOverride: 0,
    arbitrationWindowSeconds: 86_400,
    ...more,
  };
}

/** A FundPaymentV2 built by our builder, signed by the buyer alone and landed. */
async function fundedV2Payment() {
  const buyer = await fundedBuyer(10_000_000);
  const seller = await fundedBuyer(0);
  const built = await post("/build-sla-escrow-payment-v2-tx", v2Body(buyer.address, seller.address));
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  await signAndSend(built.body.transaction, [buyer]);
  return {
    buyer,
    seller,
    uidHex: built.body.paymentUidHex as string,
    addresses: await escrowAddresses(built.body.paymentUidHex),
  };
}

describe("/build-sla-escrow-payment-v2-tx", () => {
  it(
    "builds FundPaymentV2 field by field; signed by the buyer alone it lands and the Payment holds the " + "amount",
    async () => {
      const buyer = await fundedBuyer(10_000_000);
      const seller = await fundedBuyer(0);
      const body = v2Body(buyer.address, seller.address, {
        paymentUid: "order-4711",
        minOracleTip: "5000",
        refundCooldownOverride: 120,
      });
      const built = await post("/build-sla-escrow-payment-v2-tx", body);
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const a = await escrowAddresses(built.body.paymentUidHex);
      const [buyerAta] = await findAssociatedTokenPda({
        owner: buyer.address,
        mint: USDC,
        tokenProgram: TOKEN_PROGRAM,
      });
      expect(built.body).toMatchObject({
        feePayer: buyer.address,
        payer: buyer.address,
        signerPubkeys: [buyer.address],
        payerSignatureIndex: 0,
        payTo: a.escrow,
        paymentUid: "order-4711",
        paymentPda: a.payment,
        paymentExtPda: a.paymentExt,
        programId: ESCROW_PROGRAM,
      });
      // "order-4711" without dashes, ASCII, zero-padded to 32 bytes.
      expect(built.body.paymentUidHex).toBe(hex(new TextEncoder().encode("order4711")).padEnd(64, "0"));

      const decoded = decodeBuiltTransaction(built.body.transaction);
      expect(decoded.feePayer).toBe(buyer.address);
      expect(decoded.signers).toEqual([buyer.address]);
      expect(decoded.signatures).toEqual([null]);
      expect(decoded.instructions.map((ix) => ix.programAddress)).toEqual([
        COMPUTE_BUDGET_PROGRAM_ADDRESS,
        COMPUTE_BUDGET_PROGRAM_ADDRESS,
        ESCROW_PROGRAM,
      ]);
      const fund = decoded.instructions[2]!;
      expect(fund.accounts).toEqual([
        { address: buyer.address, role: AccountRole.WRITABLE_SIGNER },
        { address: a.bank, role: AccountRole.READONLY },
        { address: a.config, role: AccountRole.READONLY },
        { address: a.escrow, role: AccountRole.WRITABLE },
        { address: a.payment, role: AccountRole.WRITABLE },
        { address: USDC, role: AccountRole.READONLY },
        { address: a.escrowAta, role: AccountRole.WRITABLE },
        { address: buyerAta, role: AccountRole.WRITABLE },
        { address: TOKEN_PROGRAM, role: AccountRole.READONLY },
        { address: SYSTEM_PROGRAM_ADDRESS, role: AccountRole.READONLY },
        { address: a.paymentExt, role: AccountRole.WRITABLE },
      ]);
      expect(fund.data.length).toBe(217);
      expect(fund.data[0]).toBe(8);
      const data = fundPaymentV2Data.safeDecode(fund.data)!;
      expect(data).toMatchObject({
        seller: seller.address,
        mint: USDC,
        oracleAuthority: ORACLE,
        amount: 2_000_000n,
        ttlSeconds: 3_600n,
        closureDelayOverrideSeconds: 0n,
        refundCooldownOverrideSeconds: 120n,
        deliveryCutoffOverrideSeconds: 0n,
        arbitrationWindowSeconds: 86_400n,
        minOracleTip: 5_000n,
      });
      expect(hex(data.slaHash)).toBe(body.slaHash);
      expect(hex(data.paymentUid)).toBe(built.body.paymentUidHex);

      const escrowBefore = await usdcOf(a.escrow);
      await signAndSend(built.body.transaction, [buyer]);
      const payment = await paymentState(a.payment);
      expect(payment).toMatchObject({
        buyer: buyer.address,
        seller: seller.address,
        mint: USDC,
        oracleAuthority: ORACLE,
        amount: 2_000_000n,
        state: PAYMENT_STATE.FUNDED_EXTENDED,
      });
      expect(await usdcOf(a.escrow)).toBe(escrowBefore + 2_000_000n);
      expect(await accountData(a.paymentExt)).not.toBeNull();

      // The same uid again: refused before the buyer pays a fee.
      const again = await post("/build-sla-escrow-payment-v2-tx", body);
      expect(again.status).toBe(400);
      expect(again.body.error).toMatch(/already exists/);
    },
  );

  it("an explicit feePayer becomes account 0; the buyer keeps its signature slot", async () => {
    const buyer = await fundedBuyer(10_000_000);
    const sponsor = await fundedBuyer(0);
    const built = await post(
      "/build-sla-escrow-payment-v2-tx",
      v2Body(buyer.address, (await fundedBuyer(0)).address, { feePayer: sponsor.address }),
    );
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    expect(built.body).toMatchObject({
      feePayer: sponsor.address,
      signerPubkeys: [sponsor.address, buyer.address],
      payerSignatureIndex: 1,
    });
    await signAndSend(built.body.transaction, [sponsor, buyer]);
    expect((await paymentState((await escrowAddresses(built.body.paymentUidHex)).payment)).state).toBe(
      PAYMENT_STATE.FUNDED_EXTENDED,
    );
  });

  it(
    "refuses what the program or this facilitator would reject, with a reason; 501 for a mint without an " + "escrow",
    async () => {
      const buyer = (await fundedBuyer(0)).address;
      const seller = (await fundedBuyer(0)).address;
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ oracleAuthority: seller }, /oracleAuthority: .* not one of this facilitator's oracle authorities/],
        [{ ttlSeconds: 599 }, /ttlSeconds: 599 must lie in .* delivery budget \(600 s\)/],
        [{ ttlSeconds: 2_592_001 }, /ttlSeconds/],
        [{ deliveryCutoffOverride: 3_400 }, /ttlSeconds: 3600 .*\(3700 s\)/],
        [{ seller: buyer }, /buyer cannot be the seller/],
        [{ amount: "0" }, /amount/],
        [{ amount: "18446744073709551616" }, /amount/],
        [{ slaHash: "zz" }, /slaHash/],
        [{ paymentUid: "a", paymentUidHex: ZERO_HASH }, /either paymentUid or paymentUidHex/],
        [{ tokenProgram: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" }, /tokenProgram: mint .* belongs to/],
      ];
      await expectRefusals(
        "/build-sla-escrow-payment-v2-tx",
        cases.map(([change, reason]) => [v2Body(buyer, seller, change), reason]),
      );
      const unknownMint = await post(
        "/build-sla-escrow-payment-v2-tx",
        v2Body(buyer, seller, { mint: address("Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB") }),
      );
      expect(unknownMint.status).toBe(501);
      expect(unknownMint.body.code).toBe("NOT_IMPLEMENTED");
    },
  );
});

describe("/build-sla-escrow-mutual-action-tx", () => {
  it(
    "seller proposes a TTL extension, the buyer accepts: both built for their party and accepted by the " + "program",
    async () => {
      const { buyer, seller, uidHex, addresses: a } = await fundedV2Payment();
      const expiresBefore = (await paymentState(a.payment)).expiresAtUnixSeconds;
      const propose = await post("/build-sla-escrow-mutual-action-tx", {
        party: seller.address,
        mint: USDC,
        paymentUidHex: uidHex,
        accept: false,
        action: 2,
        value: 600,
      });
      expect(propose.status, JSON.stringify(propose.body)).toBe(200);
      expect(propose.body).toMatchObject({
        feePayer: seller.address,
        signerPubkeys: [seller.address],
        paymentExtPda: a.paymentExt,
        paymentPda: a.payment,
      });
      const proposal = decodeBuiltTransaction(propose.body.transaction).instructions;
      expect(proposal).toHaveLength(1);
      expect(proposal[0]!.accounts).toEqual([
        { address: seller.address, role: AccountRole.WRITABLE_SIGNER },
        { address: a.bank, role: AccountRole.READONLY },
        { address: a.config, role: AccountRole.READONLY },
        { address: a.escrow, role: AccountRole.READONLY },
        { address: a.payment, role: AccountRole.WRITABLE },
        { address: a.paymentExt, role: AccountRole.WRITABLE },
      ]);
      // 9 ‖ action u8 ‖ 7 pad ‖ value i64 ‖ pubkey 32 (zero for a TTL extension)
      const expected = new Uint8Array(49);
      expected.set([9, 2]);
      new DataView(expected.buffer).setBigInt64(9, 600n, true);
      expect(proposal[0]!.data).toEqual(expected);
      await signAndSend(propose.body.transaction, [seller]);

      const accept = await post("/build-sla-escrow-mutual-action-tx", {
        party: buyer.address,
        mint: USDC,
        paymentUidHex: uidHex,
        accept: true,
        action: 2,
        value: "600",
      });
      expect(accept.status, JSON.stringify(accept.body)).toBe(200);
      const acceptance = decodeBuiltTransaction(accept.body.transaction).instructions[0]!;
      expect(acceptance.data[0]).toBe(10);
      expect(acceptance.data.slice(1)).toEqual(expected.slice(1));
      expect(acceptance.accounts[0]).toEqual({ address: buyer.address, role: AccountRole.WRITABLE_SIGNER });
      await signAndSend(accept.body.transaction, [buyer]);
      expect((await paymentState(a.payment)).expiresAtUnixSeconds).toBe(expiresBefore + 600n);
    },
  );

  it("refuses strangers, bad actions and payments without a PaymentExt", async () => {
    const { uidHex, seller } = await fundedV2Payment();
    const stranger = (await fundedBuyer(0)).address;
    const base = { mint: USDC, paymentUidHex: uidHex, accept: false };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, party: stranger, action: 2, value: 60 }, /only the recorded buyer .* or seller/],
      [{ ...base, party: seller.address, action: 1 }, /pubkey: rotating the adjudicator/],
      [{ ...base, party: seller.address, action: 2, value: 0 }, /value: extending the TTL/],
      [{ ...base, party: seller.address, action: 3, value: 60 }, /action/],
      [
        { ...base, party: seller.address, action: 2, value: 60, paymentUidHex: hex(random32()) },
        /no SLA-Escrow payment/,
      ],
    ];
    await expectRefusals("/build-sla-escrow-mutual-action-tx", cases);
  });
});

describe("/build-sla-escrow-resolve-split-tx", () => {
  it("dispute → split 60/40: built for the adjudicator, signed by it alone, settles the payment on chain", async () => {
    const oracle = await oracleSigner();
    const { buyer, seller, uidHex, addresses: a } = await fundedV2Payment();
    const dispute = await post("/build-sla-escrow-dispute-tx", {
      buyer: buyer.address,
      mint: USDC,
      paymentUidHex: uidHex,
    });
    expect(dispute.status, JSON.stringify(dispute.body)).toBe(200);
    await signAndSend(dispute.body.transaction, [buyer]);

    const split = {
      adjudicator: oracle.address,
      mint: USDC,
      paymentUidHex: uidHex,
      sellerBps: 6_000,
      resolutionReason: 3,
      expectedDeliveryHash: ZERO_HASH,
      seller: seller.address,
      buyer: buyer.address,
    };
    const tooMuch = await post("/build-sla-escrow-resolve-split-tx", { ...split, sellerBps: 10_001 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatch(/sellerBps.*10000/);
    const wrongBuyer = await post("/build-sla-escrow-resolve-split-tx", { ...split, buyer: seller.address });
    expect(wrongBuyer.status).toBe(400);
    expect(wrongBuyer.body.error).toMatch(/recorded buyer/);
    const wrongHash = await post("/build-sla-escrow-resolve-split-tx", {
      ...split,
      expectedDeliveryHash: hex(random32()),
    });
    expect(wrongHash.status).toBe(400);
    expect(wrongHash.body.error).toMatch(/expectedDeliveryHash: the payment's delivery hash is 0{64}/);

    const resolutionHash = hex(random32());
    const built = await post("/build-sla-escrow-resolve-split-tx", { ...split, resolutionHash });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    expect(built.body).toMatchObject({
      feePayer: oracle.address,
      payer: oracle.address,
      signerPubkeys: [oracle.address],
      payerSignatureIndex: 0,
      paymentExtPda: a.paymentExt,
    });
    const ata = (owner: Address) =>
      findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM }).then(([x]) => x);
    const [sellerAta, buyerAta, oracleAta] = await Promise.all([
      ata(seller.address),
      ata(buyer.address),
      ata(oracle.address),
    ]);
    const ix = decodeBuiltTransaction(built.body.transaction).instructions;
    expect(ix).toHaveLength(1);
    expect(ix[0]!.accounts).toEqual([
      { address: oracle.address, role: AccountRole.WRITABLE_SIGNER },
      { address: a.bank, role: AccountRole.READONLY },
      { address: a.config, role: AccountRole.READONLY },
      { address: a.escrow, role: AccountRole.WRITABLE },
      { address: a.payment, role: AccountRole.WRITABLE },
      { address: USDC, role: AccountRole.READONLY },
      { address: a.escrowAta, role: AccountRole.WRITABLE },
      { address: sellerAta, role: AccountRole.WRITABLE },
      // pr402's encoder lists the seller and buyer wallets writable (issue 21); the buyer appears again as rent
      // recipient.
      { address: seller.address, role: AccountRole.WRITABLE },
      { address: buyerAta, role: AccountRole.WRITABLE },
      { address: buyer.address, role: AccountRole.WRITABLE },
      { address: TOKEN_PROGRAM, role: AccountRole.READONLY },
      { address: ASSOCIATED_TOKEN_PROGRAM_ADDRESS, role: AccountRole.READONLY },
      { address: SYSTEM_PROGRAM_ADDRESS, role: AccountRole.READONLY },
      { address: a.paymentExt, role: AccountRole.WRITABLE },
      { address: buyer.address, role: AccountRole.WRITABLE },
      { address: oracleAta, role: AccountRole.WRITABLE },
    ]);
    const data = resolveWithSplitData.safeDecode(ix[0]!.data)!;
    expect(data).toMatchObject({ sellerBps: 6_000, reason: 3 });
    expect(hex(data.resolutionHash)).toBe(resolutionHash);
    expect(hex(data.expectedDeliveryHash)).toBe(ZERO_HASH);

    const buyerBefore = await usdcOf(buyer.address);
    await signAndSend(built.body.transaction, [oracle]);
    const settled = await paymentState(a.payment);
    expect(settled.state).toBe(PAYMENT_STATE.RELEASED);
    expect(await usdcOf(seller.address)).toBeGreaterThan(0n);
    expect(await usdcOf(buyer.address)).toBeGreaterThan(buyerBefore);
    expect(await accountData(a.paymentExt)).toBeNull();

    const twice = await post("/build-sla-escrow-resolve-split-tx", split);
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatch(/no longer funded/);
  });

  it("refuses a FundPayment (v1) payment: it has no adjudicator", async () => {
    const buyer = await fundedBuyer(10_000_000);
    const seller = (await fundedBuyer(0)).address;
    const enriched = await post("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/report" },
      accepts: [
        {
          scheme: "sla-escrow",
          network: CLUSTERS.devnet.network,
          asset: USDC,
          amount: "2000000",
          payTo: seller,
          maxTimeoutSeconds: 3_600,
        },
      ],
    });
    expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
    const built = await post("/build-sla-escrow-payment-tx", {
      payer: buyer.address,
      accepted: enriched.body.accepts[0],
      slaHash: hex(random32()),
      oracleAuthority: ORACLE,
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    await signAndSend(built.body.transaction, [buyer]);
    const refused = await post("/build-sla-escrow-resolve-split-tx", {
      adjudicator: ORACLE,
      mint: USDC,
      paymentUidHex: built.body.paymentUidHex,
      sellerBps: 5_000,
      resolutionReason: 0,
      expectedDeliveryHash: ZERO_HASH,
      seller,
      buyer: buyer.address,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/without a PaymentExt/);
  });
});

describe("/build-refund-tx", () => {
  it(
    "merchant-paid: create the payer's ATA idempotently, TransferChecked, Memo; it lands and the payer is " +
      "refunded",
    async () => {
      const merchant = await fundedBuyer(5_000_000);
      const payer = (await fundedBuyer(0)).address;
      const built = await post("/build-refund-tx", {
        merchantWallet: merchant.address,
        payerWallet: payer,
        mint: USDC,
        amount: "1250000",
        memo: "refund order 4711",
      });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const ata = (owner: Address) =>
        findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM }).then(([x]) => x);
      const [source, destination] = await Promise.all([ata(merchant.address), ata(payer)]);
      expect(built.body).toMatchObject({
        feePayer: merchant.address,
        payer: merchant.address,
        signerPubkeys: [merchant.address],
        payerSignatureIndex: 0,
        tokenProgram: TOKEN_PROGRAM,
        sourceTokenAccount: source,
        destinationTokenAccount: destination,
        amount: "1250000",
      });
      const decoded = decodeBuiltTransaction(built.body.transaction);
      expect(decoded.feePayer).toBe(merchant.address);
      expect(decoded.signers).toEqual([merchant.address]);
      const [create, transfer, memo] = decoded.instructions;
      expect(decoded.instructions).toHaveLength(3);
      expect(create).toEqual({
        programAddress: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
        accounts: [
          { address: merchant.address, role: AccountRole.WRITABLE_SIGNER },
          { address: destination, role: AccountRole.WRITABLE },
          { address: payer, role: AccountRole.READONLY },
          { address: USDC, role: AccountRole.READONLY },
          { address: SYSTEM_PROGRAM_ADDRESS, role: AccountRole.READONLY },
          { address: TOKEN_PROGRAM, role: AccountRole.READONLY },
        ],
        data: Uint8Array.from([1]),
      });
      const transferData = new Uint8Array(10);
      transferData[0] = 12; // TransferChecked
      new DataView(transferData.buffer).setBigUint64(1, 1_250_000n, true);
      transferData[9] = 6;
      expect(transfer).toEqual({
        programAddress: TOKEN_PROGRAM,
        accounts: [
          { address: source, role: AccountRole.WRITABLE },
          { address: USDC, role: AccountRole.READONLY },
          { address: destination, role: AccountRole.WRITABLE },
          { address: merchant.address, role: AccountRole.WRITABLE_SIGNER },
        ],
        data: transferData,
      });
      expect(memo).toEqual({
        programAddress: MEMO_PROGRAM_ADDRESS,
        accounts: [],
        data: new TextEncoder().encode("refund order 4711"),
      });

      await signAndSend(built.body.transaction, [merchant]);
      expect(await usdcOf(payer)).toBe(1_250_000n);
      expect(await usdcOf(merchant.address)).toBe(3_750_000n);
    },
  );

  it("refuses native SOL, a short balance, bad amounts and a refund to oneself", async () => {
    const merchant = (await fundedBuyer(1_000)).address;
    const payer = (await fundedBuyer(0)).address;
    const base = { merchantWallet: merchant, payerWallet: payer, mint: USDC, amount: "500" };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, mint: "11111111111111111111111111111111" }, /SPL refunds/],
      [{ ...base, amount: "1001" }, /insufficient|short|has only|balance/i],
      [{ ...base, amount: "0" }, /amount/],
      [{ ...base, amount: -5 }, /amount/],
      [{ ...base, payerWallet: merchant }, /not to the merchant itself/],
      [{ ...base, memo: "x".repeat(257) }, /memo/],
      [{ ...base, merchantWallet: undefined }, /merchantWallet/],
    ];
    await expectRefusals("/build-refund-tx", cases);
  });
});

describe("escrow builders: listing and the shared build rate limit", () => {
  it("the new routes are in /capabilities httpEndpoints and /openapi.json", async () => {
    const [spec, caps] = await Promise.all([call("http://facilitator.test/openapi.json"), call("/capabilities")]);
    const routes = {
      buildSlaEscrowPaymentV2Tx: "/build-sla-escrow-payment-v2-tx",
      buildSlaEscrowMutualActionTx: "/build-sla-escrow-mutual-action-tx",
      buildSlaEscrowResolveSplitTx: "/build-sla-escrow-resolve-split-tx",
      buildRefundTx: "/build-refund-tx",
    };
    expect(spec.status, JSON.stringify(spec.body)).toBe(200);
    const paths = Object.keys(spec.body.paths);
    for (const [key, path] of Object.entries(routes)) {
      expect(caps.body.httpEndpoints[key]).toEqual({ method: "POST", path: `/api/v1/facilitator${path}` });
      expect(spec.status, JSON.stringify(spec.body)).toBe(200);
      expect(
        paths.some((p) => p.endsWith(path)),
        path,
      ).toBe(true);
    }
  });

  it("exact, escrow, refund and provision builders share one build limit: 429 with Retry-After", async () => {
    const headers = { "Content-Type": "application/json", "CF-Connecting-IP": `shared-${crypto.randomUUID()}` };
    const paths = [
      "/build-exact-payment-tx",
      "/build-sla-escrow-payment-tx",
      "/build-sla-escrow-payment-v2-tx",
      "/build-sla-escrow-mutual-action-tx",
      "/build-sla-escrow-resolve-split-tx",
      "/build-refund-tx",
      "/sellers/provision-tx",
    ];
    const answers: { path: string; status: number; headers: Headers; body: any }[] = [];
    let n = 0;
    while (answers.length < 3 * RATE_LIMITS.build.limit && !answers.some((a) => a.status === 429)) {
      const batch = Array.from({ length: 14 }, () => paths[n++ % paths.length]!);
      const results = await Promise.all(
        batch.map((path) => callWithEnv({}, path, { method: "POST", headers, body: "{}" })),
      );
      answers.push(...results.map((r, i) => ({ ...r, path: batch[i]! })));
    }
    const admitted = answers.filter((a) => a.status !== 429);
    // Every builder spent from the same budget: each was admitted (400 for the empty body) before the limit hit.
    expect(admitted.length).toBeGreaterThanOrEqual(RATE_LIMITS.build.limit);
    expect(admitted.every((a) => a.status === 400)).toBe(true);
    for (const path of paths)
      expect(
        admitted.some((a) => a.path === path),
        path,
      ).toBe(true);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expect(answer.body.code).toBe("RATE_LIMITED");
      expect(Number(answer.headers.get("Retry-After"))).toBe(RATE_LIMITS.build.periodSeconds);
    }
    // After the limit, every builder is refused for this client, not only the one that crossed it.
    const after = await Promise.all(
      paths.map((path) => callWithEnv({}, path, { method: "POST", headers, body: "{}" })),
    );
    for (const answer of after) expect(answer.status).toBe(429);
  });
});
