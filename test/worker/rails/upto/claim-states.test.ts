import { type Address, address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { UPTO_CLUSTER_DEFAULTS } from "../../../../src/rails/upto/cluster-defaults";
import { CHANNEL_STATUS, decodeChannel } from "../../../../src/rails/upto/program/accounts";
import { getRequestCloseInstruction, getTopUpInstruction } from "../../../../src/rails/upto/program/instructions";
import { PAYMENT_CHANNELS_PROGRAM_ADDRESS } from "../../../../src/rails/upto/program/pda";
import { fundedBuyer, lamportsOf, sendAs, tokenBalance } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { drainAndCloseUsdcAccount, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { channelAccount, uptoBody, uptoClaimBody, uptoDeposit, uptoLine } from "../../../support/workerd/upto-fixtures";

/**
 * Issue 32 §5: the seller's claim is accepted wherever the payment-channels program accepts it — after the buyer's own
 * TopUp (deposit above the ceiling) and RequestClose (CLOSING, within its grace period) — still bound to the voucher,
 * the ceiling the buyer signed and the channel's split; and no claim sends anything to the program's treasury (issue
 * 32 "Refunds sent to the treasury"). Real buyer transactions against the local chain's payment-channels program.
 */

async function usdcOf(owner: Address): Promise<bigint> {
  return tokenBalance(await usdcAccountOf(owner));
}

const TREASURY_OWNER = address(UPTO_CLUSTER_DEFAULTS.devnet.treasuryOwner);

async function treasuryBalance(): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner: TREASURY_OWNER, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  return tokenBalance(ata);
}

async function opened(
  label: string,
  options: { buyerUsdc?: number; withdrawDelay?: number; env?: Record<string, unknown> } = {},
) {
  const facilitator = await isolatedFacilitator(label, options.env ?? {});
  const authorizer = await generateKeyPairSigner();
  const buyer = await fundedBuyer(options.buyerUsdc ?? 5_000_000);
  const line = await uptoLine({
    feePayer: facilitator.feePayer,
    authorizer: authorizer.address,
    withdrawDelay: options.withdrawDelay,
  });
  const deposit = await uptoDeposit(buyer, line);
  const settled = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
  expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
  return { facilitator, authorizer, buyer, line, deposit, channelId: deposit.channelId as Address };
}

function requestClose(buyer: KeyPairSigner, channel: Address): Promise<string> {
  return sendAs(buyer, [
    getRequestCloseInstruction({ programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS, payer: buyer, channel }),
  ]);
}

async function channelState(channelId: Address) {
  const data = await channelAccount(channelId);
  return data ? decodeChannel(data) : null;
}

describe("upto claim after the buyer's TopUp", () => {
  it(
    "settles with the seller's voucher; the deposit above the ceiling goes back to the buyer, and the charge stays " +
      "bound to the signed ceiling",
    async () => {
      const w = await opened("upto-claim-topped-up");
      const [channelAta] = await findAssociatedTokenPda({
        owner: w.channelId,
        mint: USDC,
        tokenProgram: TOKEN_PROGRAM,
      });
      await sendAs(w.buyer, [
        getTopUpInstruction({
          programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS,
          payer: w.buyer,
          channel: w.channelId,
          payerTokenAccount: await usdcAccountOf(w.buyer.address),
          channelTokenAccount: channelAta,
          mint: USDC,
          tokenProgram: TOKEN_PROGRAM,
          amount: 500_000n,
        }),
      ]);
      expect((await channelState(w.channelId))!.deposit).toBe(2_500_000n);
      const before = await lamportsOf(w.facilitator.feePayer);

      // The top-up does not raise what the seller may charge: above the signed ceiling, refused before anything is
      // signed.
      const over = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(w.line, w.deposit, 2_000_001n, w.authorizer),
      );
      expect(over.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payload_settlement_exceeds_amount",
        transaction: "",
      });
      // Nor does a payload that claims the topped-up deposit as its ceiling: the channel was opened for another
      // payment.
      const raisedLine = { ...w.line, amount: "2500000" };
      const raised = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(
          raisedLine,
          { ...w.deposit, maxAmount: "2500000", deposit: "2500000" },
          2_400_000n,
          w.authorizer,
        ),
      );
      expect(raised.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_channel_state",
        transaction: "",
      });
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);

      const claimed = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(w.line, w.deposit, 1_250_000n, w.authorizer),
      );
      expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
      expect(claimed.body).toMatchObject({ success: true, amount: "1250000" });
      expect(await usdcOf(w.line.payTo)).toBe(1n + 1_250_000n);
      // 5,000,000 − 2,000,000 (deposit) − 500,000 (top-up) + 1,250,000 (refund of 2,500,000 − 1,250,000).
      expect(await usdcOf(w.buyer.address)).toBe(3_750_000n);
    },
  );
});

describe("upto claim after the buyer's RequestClose", () => {
  it("settles within the grace period: the channel is sealed at the voucher and distributed", async () => {
    const w = await opened("upto-claim-closing");
    await requestClose(w.buyer, w.channelId);
    expect((await channelState(w.channelId))!.status).toBe(CHANNEL_STATUS.CLOSING);
    const treasury = await treasuryBalance();

    const claimed = await w.facilitator.post("/settle", await uptoClaimBody(w.line, w.deposit, 600_000n, w.authorizer));
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body).toMatchObject({ success: true, amount: "600000" });
    expect(await usdcOf(w.line.payTo)).toBe(1n + 600_000n);
    expect(await usdcOf(w.buyer.address)).toBe(5_000_000n - 600_000n);
    expect((await channelState(w.channelId))?.status ?? CHANNEL_STATUS.DISTRIBUTED).toBe(CHANNEL_STATUS.DISTRIBUTED);
    expect(await treasuryBalance()).toBe(treasury);
  });

  it("is refused unsigned when the grace period ends too soon for the claim to land", async () => {
    const w = await opened("upto-claim-closing-late", {
      withdrawDelay: 5,
      env: { SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS: "1" },
    });
    await requestClose(w.buyer, w.channelId);
    const before = await lamportsOf(w.facilitator.feePayer);
    const refused = await w.facilitator.post("/settle", await uptoClaimBody(w.line, w.deposit, 600_000n, w.authorizer));
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({
      success: false,
      errorReason: "invalid_upto_svm_channel_state",
      transaction: "",
    });
    expect(refused.body.errorMessage).toMatch(/asked to close .* grace period ends at/);
    expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
    expect((await channelState(w.channelId))!.status).toBe(CHANNEL_STATUS.CLOSING);
  });
});

describe("upto claim when the buyer's token account cannot receive its refund", () => {
  it(
    "pays the seller now and keeps the refund in the open channel (nothing to the treasury); a cancel is refused " +
      "unsigned",
    async () => {
      // The buyer deposits everything it has and closes its emptied token account.
      const w = await opened("upto-claim-buyer-closed", { buyerUsdc: 2_000_000 });
      await drainAndCloseUsdcAccount(w.buyer, await usdcAccountOf(w.line.payTo));
      const treasury = await treasuryBalance();
      const before = await lamportsOf(w.facilitator.feePayer);

      const cancel = await w.facilitator.post("/settle", await uptoClaimBody(w.line, w.deposit, 0n, w.authorizer));
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(400);
      expect(cancel.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payout_account_unusable",
        transaction: "",
      });
      expect(cancel.body.errorMessage).toMatch(
        new RegExp(
          String.raw`buyer's token account \w+ does not exist, so Distribute would send the buyer's refund of ` +
            "2000000 to the program's treasury",
        ),
      );
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);

      const claimed = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(w.line, w.deposit, 750_000n, w.authorizer),
      );
      expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
      expect(claimed.body).toMatchObject({ success: true, amount: "750000" });
      expect(await usdcOf(w.line.payTo)).toBe(1n + 750_000n);
      expect(await treasuryBalance()).toBe(treasury);
      // The rest stays in escrow for the buyer: the channel is still open with the charge settled and paid out.
      expect(await channelState(w.channelId)).toMatchObject({
        status: CHANNEL_STATUS.OPEN,
        deposit: 2_000_000n,
        settled: 750_000n,
        payoutWatermark: 750_000n,
      });
      // The same claim again is the same payment.
      const again = await w.facilitator.post("/settle", await uptoClaimBody(w.line, w.deposit, 750_000n, w.authorizer));
      expect(again.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
    },
  );

  it(
    "a claim on a closing channel is refused unsigned (Settle cannot run there, and sealing would send the refund " +
      "to the treasury)",
    async () => {
      const w = await opened("upto-claim-buyer-closed-closing", { buyerUsdc: 2_000_000 });
      await requestClose(w.buyer, w.channelId);
      await drainAndCloseUsdcAccount(w.buyer, await usdcAccountOf(w.line.payTo));
      const before = await lamportsOf(w.facilitator.feePayer);
      const refused = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(w.line, w.deposit, 750_000n, w.authorizer),
      );
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payout_account_unusable",
        transaction: "",
      });
      expect(refused.body.errorMessage).toMatch(/channel is closing/);
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
      expect((await channelState(w.channelId))!.status).toBe(CHANNEL_STATUS.CLOSING);
    },
  );
});
