import { type Address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import { CHANNEL_STATUS, decodeChannel } from "../../../../src/rails/upto/program/accounts";
import { fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { DEVNET, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import {
  channelAccount,
  signVoucher,
  uptoBody,
  uptoClaimBody,
  uptoDeposit,
  uptoLine,
} from "../../../support/workerd/upto-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * The upto rail end to end in workerd, on the local chain's payment-channels stand-in: the deposit (the buyer's
 * channel open, co-signed by the facilitator as fee payer and rent payer), the claim of the used part with the
 * seller's voucher (or the facilitator's, delegated), the cancel, and replays — balances read back to the unit.
 */

async function usdcOf(owner: Address): Promise<bigint> {
  return tokenBalance(await usdcAccountOf(owner));
}

describe("upto: discovery", () => {
  it(
    "/supported lists upto with the fee payer and the facilitator's bounds; receiverAuthorizer only when it holds a " +
      "key",
    async () => {
      const listed = await callWithEnv(
        { FEE_PAYER_SECRET_KEY: labelledKeypair("upto-supported-a").secretKeyBase58 },
        "/supported",
      );
      const kind = listed.body.kinds.find((k: any) => k.scheme === "upto");
      expect(kind, JSON.stringify(listed.body)).toMatchObject({
        x402Version: 2,
        network: DEVNET,
        extra: {
          feePayer: labelledKeypair("upto-supported-a").address,
          minWithdrawDelay: "60",
          maxWithdrawDelay: "86400",
          maxChannelLifetimeSeconds: "3600",
        },
      });
      expect(kind.extra).not.toHaveProperty("receiverAuthorizer");

      const authorizer = labelledKeypair("upto-supported-authorizer");
      const delegated = await callWithEnv(
        {
          FEE_PAYER_SECRET_KEY: labelledKeypair("upto-supported-b").secretKeyBase58,
          SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY: authorizer.secretKeyBase58,
          SVC_UPTO_DELEGATED_SETTLE_TOKEN: "seller-token-0123456789",
        },
        "/supported",
      );
      expect(delegated.body.kinds.find((k: any) => k.scheme === "upto").extra).toMatchObject({
        receiverAuthorizer: authorizer.address,
      });
      expect(JSON.stringify(delegated.body)).not.toContain("seller-token-0123456789");
    },
  );
});

describe("upto: deposit, claim, cancel", () => {
  it(
    "a deposit to a payTo without a token account for the asset is refused by the builder, /verify and /settle: " +
      "nothing is locked, no rent fronted",
    async () => {
      const facilitator = await isolatedFacilitator("upto-payout-missing");
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const seller = (await generateKeyPairSigner()).address; // no USDC account: a claim could never pay it
      const line = await uptoLine({ feePayer: facilitator.feePayer, authorizer: authorizer.address, payTo: seller });
      const feePayerBefore = await lamportsOf(facilitator.feePayer);

      const built = await facilitator.post("/build-upto-deposit-tx", { payer: buyer.address, accepted: line });
      expect(built.status, JSON.stringify(built.body)).toBe(400);
      expect(built.body).toMatchObject({
        code: "BAD_REQUEST",
        reason: "invalid_upto_svm_payout_account_unusable",
        field: "accepted.payTo",
      });
      expect(built.body.error).toMatch(/^accepted\.payTo: payTo's token account \w+ for \w+ does not exist/);

      const deposit = await uptoDeposit(buyer, line);

      const verified = await facilitator.post("/verify", uptoBody(line, deposit));
      expect(verified.body).toMatchObject({
        isValid: false,
        invalidReason: "invalid_upto_svm_payout_account_unusable",
      });
      expect(verified.body.error).toMatch(
        new RegExp(
          `^payTo's token account \\w+ for \\w+ does not exist, so no claim could pay ${seller}: the seller creates it`,
        ),
      );
      const settled = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(settled.body).toMatchObject({ success: false, errorReason: "invalid_upto_svm_payout_account_unusable" });
      expect(await channelAccount(deposit.channelId)).toBeNull();
      expect(await usdcOf(buyer.address)).toBe(5_000_000n);
      expect(await lamportsOf(facilitator.feePayer)).toBe(feePayerBefore);
    },
  );

  it(
    "deposits the ceiling, claims the used part with the seller's voucher; the rest goes back to the buyer; replays " +
      "are duplicates",
    async () => {
      const facilitator = await isolatedFacilitator("upto-claim");
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const line = await uptoLine({ feePayer: facilitator.feePayer, authorizer: authorizer.address });
      const deposit = await uptoDeposit(buyer, line);
      const body = uptoBody(line, deposit);

      const verified = await facilitator.post("/verify", body);
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);
      expect(verified.body).toMatchObject({ isValid: true, payer: buyer.address });

      const settled = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(settled.status, JSON.stringify(settled.body)).toBe(200);
      // `amount` as @x402/core's SettleResponse has it for upto: the deposit here, the charge for a claim.
      expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: DEVNET, amount: "2000000" });
      expect(await usdcOf(buyer.address)).toBe(3_000_000n);
      const channel = decodeChannel((await channelAccount(deposit.channelId))!)!;
      expect(channel).toMatchObject({
        status: CHANNEL_STATUS.OPEN,
        deposit: 2_000_000n,
        payer: buyer.address,
        payee: facilitator.feePayer,
        rentPayer: facilitator.feePayer,
      });

      const depositReplay = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(depositReplay.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });

      const used = 1_250_001n;
      const claim = await uptoClaimBody(line, deposit, used, authorizer);
      const claimed = await facilitator.post("/settle", claim);
      expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
      expect(claimed.body).toMatchObject({ success: true, payer: buyer.address, amount: used.toString() });
      expect(claimed.body.transaction).not.toBe(settled.body.transaction);
      expect(await usdcOf(line.payTo)).toBe(1n + used);
      expect(await usdcOf(buyer.address)).toBe(5_000_000n - used);

      // The seller's body replayed (by anyone): one payment, one success.
      const replay = await facilitator.post("/settle", claim);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
        transaction: claimed.body.transaction,
      });
      // A second claim of the same channel for another amount: also the same payment.
      const other = await facilitator.post("/settle", await uptoClaimBody(line, deposit, 5n, authorizer));
      expect(other.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
      expect(await usdcOf(line.payTo)).toBe(1n + used);
    },
  );

  it(
    "a zero-amount cancel (voucher for 0) returns the whole deposit; the escrow rent comes back to the fee " + "payer",
    async () => {
      const facilitator = await isolatedFacilitator("upto-cancel");
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const line = await uptoLine({ feePayer: facilitator.feePayer, authorizer: authorizer.address, amount: "700000" });
      const deposit = await uptoDeposit(buyer, line);
      const before = await lamportsOf(facilitator.feePayer);
      const settled = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
      expect(await usdcOf(buyer.address)).toBe(4_300_000n);

      const cancelled = await facilitator.post("/settle", await uptoClaimBody(line, deposit, 0n, authorizer));
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(await usdcOf(buyer.address)).toBe(5_000_000n);
      expect(await usdcOf(line.payTo)).toBe(1n);
      // What the fee payer is out: the two network fees (2 + 1 signatures) and the channel account's rent until
      // Reclaim.
      const spent = before - (await lamportsOf(facilitator.feePayer));
      const channelInfo = await channelAccount(deposit.channelId);
      const channelRent = channelInfo ? 2_672_640n : 0n; // 256-byte account, rent-exempt minimum
      expect(spent).toBeLessThanOrEqual(15_000n + 1_000n + channelRent);
    },
  );

  it(
    "delegated mode: the facilitator signs the voucher for a claim that carries the seller's bearer token, and for " +
      "nobody else",
    async () => {
      const authorizer = labelledKeypair(`upto-delegated/${crypto.randomUUID()}`);
      const token = `token-${crypto.randomUUID()}`;
      const facilitator = await isolatedFacilitator("upto-delegated", {
        SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY: authorizer.secretKeyBase58,
        SVC_UPTO_DELEGATED_SETTLE_TOKEN: token,
      });
      const buyer = await fundedBuyer(5_000_000);
      const line = await uptoLine({ feePayer: facilitator.feePayer, authorizer: authorizer.address as Address });
      const deposit = await uptoDeposit(buyer, line);
      const auth = { Authorization: `Bearer ${token}` };

      const anonymousDeposit = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(anonymousDeposit.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_delegated_settle_unauthenticated",
      });
      const settled = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }), auth);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });

      // The buyer (who has the payload) tries to cancel its own payment without the seller's token: refused.
      const buyerCancel = await facilitator.post("/settle", await uptoClaimBody(line, deposit, 0n, null));
      expect(buyerCancel.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_delegated_settle_unauthenticated",
      });
      const wrongToken = await facilitator.post("/settle", await uptoClaimBody(line, deposit, 0n, null), {
        Authorization: "Bearer not-the-token-at-all",
      });
      expect(wrongToken.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_delegated_settle_unauthenticated",
      });

      const claimed = await facilitator.post("/settle", await uptoClaimBody(line, deposit, 900_000n, null), auth);
      expect(claimed.body, JSON.stringify(claimed.body)).toMatchObject({ success: true });
      expect(await usdcOf(line.payTo)).toBe(1n + 900_000n);
      expect(await usdcOf(buyer.address)).toBe(5_000_000n - 900_000n);
    },
  );

  it("a voucher signed by anyone but the line's receiver authorizer is refused before anything is signed", async () => {
    const facilitator = await isolatedFacilitator("upto-forged");
    const authorizer = await generateKeyPairSigner();
    const forger = await generateKeyPairSigner();
    const buyer = await fundedBuyer(5_000_000);
    const line = await uptoLine({ feePayer: facilitator.feePayer, authorizer: authorizer.address });
    const deposit = await uptoDeposit(buyer, line);
    expect((await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }))).body).toMatchObject({
      success: true,
    });
    const before = await lamportsOf(facilitator.feePayer);

    const forged = await uptoClaimBody(line, deposit, 2_000_000n, forger);
    const refused = await facilitator.post("/settle", forged);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      success: false,
      errorReason: "invalid_upto_svm_payload_voucher_signature",
      transaction: "",
    });
    // A voucher of the right key for another amount does not authorize this one either.
    const swapped = await uptoClaimBody(line, deposit, 2_000_000n, authorizer);
    swapped.paymentPayload.payload.voucherSignature = await signVoucher(
      authorizer,
      deposit.channelId,
      1n,
      BigInt(deposit.expiresAt),
    );
    expect((await facilitator.post("/settle", swapped)).body).toMatchObject({
      errorReason: "invalid_upto_svm_payload_voucher_signature",
    });
    expect(await lamportsOf(facilitator.feePayer)).toBe(before);
    expect(await usdcOf(buyer.address)).toBe(3_000_000n);
  });
});
