/**
 * `exact` to the seller's own wallet (SVC_EXACT_WALLET_PAYTO, on by default locally): verified by the official
 * `@x402/svm` facilitator's rules plus this facilitator's fee-payer policy, settled exactly once by the shared engine.
 * Each money rule has a crafted transaction that breaks only that rule (the standard shape otherwise), sent to the
 * real /verify or /settle of the Worker against the local chain.
 */
import { env } from "cloudflare:test";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { selectSweepCandidates } from "../../../../src/rails/exact/sweep/sweeps";
import { chainRpc, fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import {
  craftBody,
  FEE_PAYER,
  memo,
  type PaymentParts,
  paymentParts,
  standardInstructions,
  TOKEN_2022_PROGRAM,
  transferChecked,
} from "../../../support/workerd/craft-payment";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { createUsdcAccount, DEVNET, NATIVE_SOL, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { signMessage } from "../../../support/workerd/seller-fixtures";
import { createToken2022Mint, mintCloseAuthority } from "../../../support/workerd/token-2022-mints";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

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
/** Each build call comes from its own client address, so the per-client rate limit never interferes. */
const build = (json: unknown) =>
  call("/build-exact-payment-tx", { method: "POST", json, headers: { "CF-Connecting-IP": crypto.randomUUID() } });
const jsonPost = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

async function expectRefused(body: Record<string, any>, reason: string, message?: RegExp) {
  const response = await verify(body);
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.invalidReason).toBe(reason);
  if (message) expect(response.body.invalidMessage).toMatch(message);
}

/** Refused with `reason` and a message naming what is wrong at /verify and at /settle; the fee payer spent nothing. */
async function expectRefusedAtVerifyAndSettle(body: Record<string, any>, reason: string, message: RegExp) {
  await expectRefused(body, reason, message);
  const feePayerBefore = await lamportsOf(FEE_PAYER);
  const settled = await settle(body);
  expect(settled.status, JSON.stringify(settled.body)).toBe(400);
  expect(settled.body).toMatchObject({ success: false, errorReason: reason });
  expect(settled.body.errorMessage).toMatch(message);
  expect(await lamportsOf(FEE_PAYER)).toBe(feePayerBefore);
}

function expectBuilderRefused(built: { status: number; body: any }, reason: string, message: RegExp) {
  expect(built.status, JSON.stringify(built.body)).toBe(400);
  expect(built.body.reason).toBe(reason);
  expect(built.body.error).toMatch(message);
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

  it(
    "a payment below the exact minimum (the program's minimum fee by default) is refused as on the vault " + "form",
    async () => {
      // 9,999 raw: one unit under the default 0.01 USDC, so the fee payer never pays a network fee for a payment not
      // worth one.
      const small = walletLine(seller.address, USDC, "9999");
      const smallParts = await paymentParts(buyer, small);
      const body = await craftBody(small, standardInstructions(smallParts), { signers: [buyer] });
      await expectRefused(
        body,
        "invalid_exact_svm_payload_amount_below_minimum",
        /below this facilitator's minimum of 10000 raw units/,
      );
    },
  );

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

  it(
    "a seller without a token account for the mint is refused by name at verify, settle and the builder; the fee " +
      "payer spends nothing",
    async () => {
      // A payment to the stock seller puts USDC in the mint cache: verify then reads nothing before its simulation, and
      // the refusals name the account from the one read made after the chain refused the payment.
      expect((await verify(await craftBody(line, standardInstructions(parts), { signers: [buyer] }))).status).toBe(200);
      const bare = await generateKeyPairSigner();
      const bareLine = walletLine(bare.address);
      const bareParts = await paymentParts(buyer, bareLine);
      const body = await craftBody(bareLine, standardInstructions(bareParts), { signers: [buyer] });
      const named = new RegExp(
        `payTo ${bare.address} has no token account for mint ${USDC}: .*${bareParts.vaultAta} does not exist`,
      );
      await expectRefusedAtVerifyAndSettle(body, "invalid_exact_svm_payload_recipient_token_account_missing", named);
      expect(await chainRpc("getAccountInfo", [bareParts.vaultAta, { encoding: "base64" }])).toMatchObject({
        value: null,
      });
      const built = await build({ payer: buyer.address, accepted: bareLine });
      expectBuilderRefused(built, "invalid_exact_svm_payload_recipient_token_account_missing", named);
    },
  );

  it(
    "a missing recipient token account is named from the mint's own read when the mint is not cached " + "yet",
    async () => {
      const token = await createToken2022Mint();
      const payer = await fundedBuyer(0);
      await token.fund(payer.address, 1_000_000n);
      const bare = await generateKeyPairSigner();
      const bareLine = walletLine(bare.address, token.mint, "100000");
      const bareParts = await paymentParts(payer, bareLine, TOKEN_2022_PROGRAM);
      const body = await craftBody(bareLine, standardInstructions(bareParts), { signers: [payer] });
      // Through a counting proxy; a first payment warms what every verify reads once (the program's facts, USDC).
      const scenario = faultScenario();
      const verifyThere = (json: unknown) =>
        callWithEnv({ SOLANA_RPC_URL: scenario.rpcUrl }, "/verify", jsonPost(json));
      const accountReads = async () => (await scenario.calls()).getMultipleAccounts ?? 0;
      const warm = await verifyThere(await craftBody(line, standardInstructions(parts), { signers: [buyer] }));
      expect(warm.status, JSON.stringify(warm.body)).toBe(200);
      const readsBefore = await accountReads();

      // The first sight of this mint: one account read carries the mint and the recipient, beside the simulation.
      const refused = await verifyThere(body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.invalidReason).toBe("invalid_exact_svm_payload_recipient_token_account_missing");
      expect(refused.body.invalidMessage).toMatch(
        new RegExp(`no token account for mint ${token.mint}: .*${bareParts.vaultAta}`),
      );
      expect(await accountReads()).toBe(readsBefore + 1);

      // Once the seller has its token account the payment verifies, and with the mint cached nothing more is read.
      await token.tokenAccount(bare.address);
      const paid = await verifyThere(body);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(await accountReads()).toBe(readsBefore + 1);
    },
  );

  it(
    "where the operator turned it off, a wallet payTo is refused before any chain read and names the " + "setting",
    async () => {
      const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
      const refused = await callWithEnv({ SVC_EXACT_WALLET_PAYTO: "false" }, "/verify", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(refused.status).toBe(400);
      expect(refused.body.invalidReason).toBe("invalid_exact_svm_payload_missing_merchant_wallet");
      expect(refused.body.invalidMessage).toMatch(/SVC_EXACT_WALLET_PAYTO is off/);
    },
  );
});

describe("exact and a Token-2022 mint its close authority could close and create again", () => {
  it(
    "is refused with its own reason at verify, settle (its facts cached), the builder and vault provisioning; a " +
      "revoked authority is accepted",
    async () => {
      const closer = await generateKeyPairSigner();
      for (const [authority, refused] of [
        [closer.address, true],
        [null, false],
      ] as const) {
        const token = await createToken2022Mint([mintCloseAuthority(authority)]);
        const payer = await fundedBuyer(0);
        await token.fund(payer.address, 1_000_000n);
        await token.tokenAccount(seller.address);
        const tokenLine = walletLine(seller.address, token.mint, "100000");
        const tokenParts = await paymentParts(payer, tokenLine, TOKEN_2022_PROGRAM);
        const body = await craftBody(tokenLine, standardInstructions(tokenParts), { signers: [payer] });
        const built = await build({ payer: payer.address, accepted: tokenLine });
        if (!refused) {
          expect((await verify(body)).status).toBe(200);
          expect(built.status, JSON.stringify(built.body)).toBe(200);
          continue;
        }
        const named = new RegExp(`mint ${token.mint} has a close authority \\(${closer.address}\\)`);
        await expectRefusedAtVerifyAndSettle(body, "invalid_exact_svm_payload_mint_close_authority", named);
        expect(await tokenBalance(tokenParts.sourceAta)).toBe(1_000_000n);
        expectBuilderRefused(built, "invalid_exact_svm_payload_mint_close_authority", named);
        // Nor is a vault for it provisioned: the vault form would refuse its payments the same way.
        const provision = await call("/sellers/provision-tx", {
          method: "POST",
          json: { wallet: seller.address, asset: token.mint },
        });
        expect(provision.status, JSON.stringify(provision.body)).toBe(400);
        expect(provision.body.error).toMatch(named);
      }
    },
  );
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
