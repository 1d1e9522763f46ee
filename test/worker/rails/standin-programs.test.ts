import { type Address, address } from "@solana/kit";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { EXACT_CLUSTER_DEFAULTS } from "../../../src/rails/exact/cluster-defaults";
import { decodeSplitVault, decodeUniversalSettleConfig } from "../../../src/rails/exact/program/accounts";
import { getSweepInstruction } from "../../../src/rails/exact/program/instructions";
import { findUniversalSettleConfigPda } from "../../../src/rails/exact/program/pda";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../src/rails/sla-escrow/cluster-defaults";
import { decodePayment, PAYMENT_STATE } from "../../../src/rails/sla-escrow/program/accounts";
import {
  getApproveDeliveryInstruction,
  getFundPaymentInstruction,
  getSubmitDeliveryInstruction,
} from "../../../src/rails/sla-escrow/program/instructions";
import { randomPaymentUid } from "../../../src/rails/sla-escrow/program/payment-uid";
import { buildPayoutInstruction } from "../../../src/rails/sla-escrow/program/payout-instructions";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findPaymentPda,
} from "../../../src/rails/sla-escrow/program/pda";
import { chainRpc, fundedBuyer, sendSigned, signAndSend, tokenBalance } from "../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../support/workerd/craft-payment";
import { enrichedLine, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { call } from "../../support/workerd/worker-http";

/**
 * The stand-in programs executing the facilitator's own instructions as real transactions on the local chain
 * (issue: local stand-ins). Everything goes over JSON-RPC, as against a cluster.
 */

const SETTLE_PROGRAM = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
const ESCROW_PROGRAM = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);

async function accountData(account: Address): Promise<Uint8Array | null> {
  const result = await chainRpc<{ value: { data: [string, string] } | null }>("getAccountInfo", [
    account,
    { encoding: "base64" },
  ]);
  return result.value ? Uint8Array.from(atob(result.value.data[0]), (c) => c.charCodeAt(0)) : null;
}

describe("UniversalSettle stand-in: provision → pay → sweep", () => {
  it(
    "a seller activates with /sellers/provision-tx, is paid through /settle and swept with the fee " + "taken",
    async () => {
      const seller = await fundedBuyer(0);
      const provision = await call("/sellers/provision-tx", {
        method: "POST",
        json: { wallet: seller.address, asset: "USDC" },
      });
      expect(provision.status, JSON.stringify(provision.body)).toBe(200);
      expect(provision.body.statusCode).toBe("VAULT_AND_ATA");
      await signAndSend(provision.body.transaction, [seller]);

      const vault = address(provision.body.vaultPda);
      const vaultState = decodeSplitVault((await accountData(vault))!);
      expect(vaultState).toMatchObject({ seller: seller.address, isSovereign: true });

      const buyer = await fundedBuyer(10_000_000);
      const line = await enrichedLine(USDC, "5000000", seller.address);
      expect(line.payTo).toBe(vault);
      expect(line.extra.feeBps).toBe("90");
      const settled = await call("/settle", { method: "POST", json: await signedPaymentBody(buyer, line) });
      expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);

      const [configPda] = await findUniversalSettleConfigPda(SETTLE_PROGRAM);
      const config = decodeUniversalSettleConfig((await accountData(configPda))!)!;
      const [vaultAta] = await findAssociatedTokenPda({ owner: vault, mint: USDC, tokenProgram: TOKEN_PROGRAM });
      const [sellerAta] = await findAssociatedTokenPda({
        owner: seller.address,
        mint: USDC,
        tokenProgram: TOKEN_PROGRAM,
      });
      const [feeAta] = await findAssociatedTokenPda({
        owner: config.feeDestination,
        mint: USDC,
        tokenProgram: TOKEN_PROGRAM,
      });
      const feeBefore = await tokenBalance(feeAta).catch(() => 0n);

      await sendSigned(seller, [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: seller,
          ata: sellerAta,
          owner: seller.address,
          mint: USDC,
        }),
        getCreateAssociatedTokenIdempotentInstruction({
          payer: seller,
          ata: feeAta,
          owner: config.feeDestination,
          mint: USDC,
        }),
        getSweepInstruction({
          kind: "spl",
          programId: SETTLE_PROGRAM,
          payer: seller,
          vault,
          config: configPda,
          vaultAta,
          sellerAta,
          feeReceiverAta: feeAta,
          mint: USDC,
          tokenProgram: TOKEN_PROGRAM,
          amount: 0n,
        }),
      ]);
      // Sovereign: 90 bps of 5 USDC = 45,000 raw (above the 1-cent minimum), no recovery withheld.
      expect(await tokenBalance(sellerAta)).toBe(4_955_000n);
      expect((await tokenBalance(feeAta)) - feeBefore).toBe(45_000n);
      expect(await tokenBalance(vaultAta)).toBe(0n);
    },
  );
});

describe("SLA-Escrow stand-in: fund → deliver → approve → release", () => {
  it("moves a USDC payment through its lifecycle with the facilitator's own builders", async () => {
    const buyer = await fundedBuyer(10_000_000);
    const seller = await fundedBuyer(0);
    const [bank] = await findBankPda(ESCROW_PROGRAM);
    const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
    const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
    const uid = randomPaymentUid();
    const [payment] = await findPaymentPda(ESCROW_PROGRAM, uid.bytes, bank);
    const [escrowAta] = await findAssociatedTokenPda({ owner: escrow, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    const [buyerAta] = await findAssociatedTokenPda({ owner: buyer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    const [sellerAta] = await findAssociatedTokenPda({
      owner: seller.address,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
    });
    const accounts = { programId: ESCROW_PROGRAM, bank, config, escrow, payment };
    const deliveryHash = crypto.getRandomValues(new Uint8Array(32));
    const oracle = (await fundedBuyer(0, 1_000_000)).address;

    await sendSigned(buyer, [
      getFundPaymentInstruction({
        ...accounts,
        kind: "spl",
        buyer,
        seller: seller.address,
        mint: USDC,
        escrowAta,
        buyerAta,
        tokenProgram: TOKEN_PROGRAM,
        oracleAuthority: oracle,
        paymentUid: uid.bytes,
        slaHash: crypto.getRandomValues(new Uint8Array(32)),
        amount: 2_000_000n,
        ttlSeconds: 3_600n,
      }),
    ]);
    expect(decodePayment((await accountData(payment))!)).toMatchObject({
      amount: 2_000_000n,
      seller: seller.address,
      buyer: buyer.address,
    });
    await sendSigned(seller, [getSubmitDeliveryInstruction({ ...accounts, seller, deliveryHash })]);
    await sendSigned(buyer, [getApproveDeliveryInstruction({ ...accounts, buyer, deliveryHash })]);
    // The ABI's SPL release: the program creates the seller's and the oracle's token accounts, paid by the caller.
    const approved = decodePayment((await accountData(payment))!)!;
    const release = await buildPayoutInstruction("release", {
      programId: ESCROW_PROGRAM,
      caller: seller,
      paymentAddress: payment,
      payment: approved,
      tokenProgram: TOKEN_PROGRAM,
    });
    await sendSigned(seller, [release.instruction]);
    const released = decodePayment((await accountData(payment))!)!;
    expect(released.state).toBe(PAYMENT_STATE.RELEASED);
    // A verdict exists and oracle_fee_bps = 100: the oracle's tip is 1% of 2 USDC = 20,000 raw; the escrow fee on the
    // remaining 1,980,000 is 19,800 raw by rate, below the seeded 10-cent (100,000 raw) minimum of
    // docs/facilitator-spec.md §8.
    const [oracleAta] = await findAssociatedTokenPda({ owner: oracle, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect(await tokenBalance(sellerAta)).toBe(1_880_000n);
    expect(await tokenBalance(oracleAta)).toBe(20_000n);
  });
});
