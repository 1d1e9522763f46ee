/**
 * `exact` to the seller's own wallet (SVC_EXACT_WALLET_PAYTO, on by default locally): verified by the official
 * `@x402/svm` facilitator's rules plus this facilitator's fee-payer policy, settled exactly once by the shared engine.
 * Each money rule has a crafted transaction that breaks only that rule (the standard shape otherwise), sent to the
 * real /verify or /settle of the Worker against the local chain.
 */
import { env } from "cloudflare:test";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "../../src/chain/compute-budget";
import { selectSweepCandidates } from "../../src/rails/exact/sweep/sweeps";
import { chainRpc, fundedBuyer, lamportsOf, tokenBalance } from "../support/workerd/chain";
import {
  craftBody,
  FEE_PAYER,
  memo,
  type PaymentParts,
  paymentParts,
  standardInstructions,
  transferChecked,
} from "../support/workerd/craft-payment";
import { createUsdcAccount, DEVNET, NATIVE_SOL, USDC, usdcAccountOf } from "../support/workerd/payment-fixtures";
import { signMessage } from "../support/workerd/seller-fixtures";
import { call, callWithEnv } from "../support/workerd/worker-http";

const AMOUNT = "250000";
let seller: KeyPairSigner;
let buyer: KeyPairSigner;
let line: Record<string, any>;
let parts: PaymentParts;

/** A stock seller's line: its own wallet as payTo, the facilitator's fee payer from /supported, nothing else. */
function walletLine(payTo: Address, asset: Address = USDC, amount = AMOUNT): Record<string, any> {
  return {
    scheme: "exact",
    network: DEVNET,
    asset,
    amount,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: FEE_PAYER },
  };
}

beforeAll(async () => {
  seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  await createUsdcAccount(seller.address, seller);
  buyer = await fundedBuyer(50_000_000);
  line = walletLine(seller.address);
  parts = await paymentParts(buyer, line); // its "vaultAta" is the seller's own USDC account here
});

const verify = (body: unknown) => call("/verify", { method: "POST", json: body });
const settle = (body: unknown) => call("/settle", { method: "POST", json: body });

async function expectRefused(body: Record<string, any>, reason: string, message?: RegExp) {
  const response = await verify(body);
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.invalidReason).toBe(reason);
  if (message) expect(response.body.invalidMessage).toMatch(message);
}

describe("exact to a wallet payTo", () => {
  it("verifies and settles into the seller's own token account exactly once; it is no sweep candidate", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    const verified = await verify(body);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ isValid: true, payer: buyer.address });

    const sellerBefore = await tokenBalance(parts.vaultAta);
    const buyerBefore = await tokenBalance(parts.sourceAta);
    const settled = await settle(body);
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
    expect(await tokenBalance(parts.vaultAta)).toBe(sellerBefore + BigInt(AMOUNT));
    expect(await tokenBalance(parts.sourceAta)).toBe(buyerBefore - BigInt(AMOUNT));

    // The same settle engine: a replay is a duplicate, nothing moves twice.
    const replay = await settle(body);
    expect(replay.body).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
      transaction: settled.body.transaction,
    });
    expect(await tokenBalance(parts.vaultAta)).toBe(sellerBefore + BigInt(AMOUNT));

    // The ledger names the wallet as seller and payTo; the sweep never looks for a vault of it.
    const row = await env.DB.prepare(
      "SELECT pay_to AS payTo, merchant_wallet AS merchantWallet, state FROM settlements WHERE signature = ?",
    )
      .bind(settled.body.transaction)
      .first<any>();
    expect(row).toEqual({ payTo: seller.address, merchantWallet: seller.address, state: "confirmed" });
    const candidates = await selectSweepCandidates(env.DB, {
      nowMs: Date.now(),
      settledSinceMs: 0,
      attemptedBeforeMs: Date.now(),
      limit: 1000,
    });
    expect(candidates.map((c) => c.wallet)).not.toContain(seller.address);
  });

  it("a payment below the exact minimum (the program's minimum fee by default) is refused as on the vault form", async () => {
    // 9,999 raw: one unit under the default 0.01 USDC, so the fee payer never pays a network fee for a payment not worth one.
    const small = walletLine(seller.address, USDC, "9999");
    const smallParts = await paymentParts(buyer, small);
    const body = await craftBody(small, standardInstructions(smallParts), { signers: [buyer] });
    await expectRefused(
      body,
      "invalid_exact_svm_payload_amount_below_minimum",
      /below this facilitator's minimum of 10000 raw units/,
    );
  });

  it("the transfer must go to payTo's associated token account for the mint (another account is refused)", async () => {
    const other = await generateKeyPairSigner();
    await chainRpc("requestAirdrop", [other.address, 1_000_000_000]);
    const elsewhere = await createUsdcAccount(other.address, other); // exists: only the rule stops this payment
    const body = await craftBody(
      line,
      [
        getSetComputeUnitLimitInstruction(20_000),
        getSetComputeUnitPriceInstruction(1n),
        transferChecked(parts, { destination: elsewhere }),
        memo(crypto.randomUUID()),
      ],
      { signers: [buyer] },
    );
    await expectRefused(
      body,
      "invalid_exact_svm_payload_recipient_mismatch",
      new RegExp(`not to ${parts.vaultAta}, the token account of payTo ${seller.address}`),
    );
  });

  it("the amount must be exactly the requirement's (more and less are refused)", async () => {
    for (const amount of [BigInt(AMOUNT) - 1n, BigInt(AMOUNT) + 1n]) {
      const body = await craftBody(
        line,
        [
          getSetComputeUnitLimitInstruction(20_000),
          getSetComputeUnitPriceInstruction(1n),
          transferChecked(parts, { amount }),
          memo(crypto.randomUUID()),
        ],
        { signers: [buyer] },
      );
      await expectRefused(body, "invalid_exact_svm_payload_amount_mismatch");
    }
  });

  it("a transfer into its own source is refused (it would read as paid while nothing moves)", async () => {
    // The buyer names itself as payTo: source and destination are the same account.
    const selfLine = walletLine(buyer.address);
    const selfParts = await paymentParts(buyer, selfLine);
    expect(selfParts.vaultAta).toBe(selfParts.sourceAta);
    const body = await craftBody(selfLine, standardInstructions(selfParts), { signers: [buyer] });
    await expectRefused(body, "invalid_exact_svm_payload_transfer_to_source");
  });

  it("the fee payer may not be the transfer's authority or appear in any instruction", async () => {
    const feePayerSource = await usdcAccountOf(FEE_PAYER);
    const asFeePayer = { ...parts, sourceAta: feePayerSource, buyer: { address: FEE_PAYER } as KeyPairSigner };
    const body = await craftBody(
      line,
      [
        getSetComputeUnitLimitInstruction(20_000),
        getSetComputeUnitPriceInstruction(1n),
        transferChecked(asFeePayer),
        memo(crypto.randomUUID(), [buyer.address]),
      ],
      { signers: [buyer] },
    );
    await expectRefused(body, "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds");
  });

  it("compute caps hold as on the vault path", async () => {
    const body = await craftBody(
      line,
      [
        getSetComputeUnitLimitInstruction(20_000),
        getSetComputeUnitPriceInstruction(10_000_000_000n),
        transferChecked(parts),
        memo(crypto.randomUUID()),
      ],
      { signers: [buyer] },
    );
    await expectRefused(body, "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high");
  });

  it("the decimals must be the mint's", async () => {
    const body = await craftBody(
      line,
      [
        getSetComputeUnitLimitInstruction(20_000),
        getSetComputeUnitPriceInstruction(1n),
        transferChecked(parts, { decimals: 9 }),
        memo(crypto.randomUUID()),
      ],
      { signers: [buyer] },
    );
    await expectRefused(body, "invalid_exact_svm_payload_mint_mismatch", /decimals/);
  });

  it("native SOL is paid only into a vault", async () => {
    const solLine = walletLine(seller.address, NATIVE_SOL, "1000000");
    const body = await craftBody(solLine, standardInstructions(parts), { signers: [buyer] });
    await expectRefused(body, "invalid_exact_svm_payload_wallet_pay_to_native_sol");
  });

  it("a seller without a token account for the mint is refused at verify and at settle; the fee payer spends nothing", async () => {
    const bare = await generateKeyPairSigner();
    const bareLine = walletLine(bare.address);
    const bareParts = await paymentParts(buyer, bareLine);
    const body = await craftBody(bareLine, standardInstructions(bareParts), { signers: [buyer] });
    const verified = await verify(body);
    expect(verified.status).toBe(400);
    expect(verified.body.isValid).toBe(false);
    const feePayerBefore = await lamportsOf(FEE_PAYER);
    const settled = await settle(body);
    expect(settled.body.success, JSON.stringify(settled.body)).toBe(false);
    expect(await lamportsOf(FEE_PAYER)).toBe(feePayerBefore);
    expect(await chainRpc("getAccountInfo", [bareParts.vaultAta, { encoding: "base64" }])).toMatchObject({
      value: null,
    });
  });

  it("where the operator turned it off, a wallet payTo is refused before any chain read and names the setting", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    const refused = await callWithEnv({ SVC_EXACT_WALLET_PAYTO: "false" }, "/verify", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.invalidReason).toBe("invalid_exact_svm_payload_missing_merchant_wallet");
    expect(refused.body.invalidMessage).toMatch(/SVC_EXACT_WALLET_PAYTO is off/);
  });
});

describe("the seller's payment history", () => {
  it("lists a payment to its own wallet (the line names no merchantWallet)", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    const settled = await settle(body);
    expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
    let entries: { payTo: string; kind: string; settlementSignature?: string }[] = [];
    for (
      let attempt = 0;
      attempt < 20 && !entries.some((e) => e.settlementSignature === settled.body.transaction);
      attempt++
    ) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const message = (await call(`/sellers/${seller.address}/challenge?action=seller:payments`)).body.message;
      const page = await call("/seller/payments", {
        method: "POST",
        json: { wallet: seller.address, message, signature: await signMessage(seller, message), limit: 50 },
      });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      entries = page.body.entries;
    }
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: "settle", payTo: seller.address, settlementSignature: settled.body.transaction }),
    );
  });
});

describe("POST /build-exact-payment-tx for a wallet payTo", () => {
  it("builds a transfer into payTo's own token account that verifies", async () => {
    const built = await call("/build-exact-payment-tx", {
      method: "POST",
      json: { payer: buyer.address, accepted: line },
      headers: { "CF-Connecting-IP": crypto.randomUUID() },
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    expect(built.body.destination).toBe(parts.vaultAta);
    expect(built.body.notes.join(" ")).toMatch(/seller's own token account/);
  });
});
