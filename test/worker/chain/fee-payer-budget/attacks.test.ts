/**
 * What a stranger can make the fee payer spend, tried as an attacker would (issue "exact on mainnet out of the box"):
 * round trips between one's own wallets, paying oneself, filling the strangers' pool to stop the operator's jobs or a
 * proven seller's buyers, retries that would un-book a fee the chain charged, payments that fail on chain again and
 * again, and a top-up the budget would not see. Real: workerd, local D1, the ledger objects, the local chain (behind
 * the RPC fault proxy where a race between preflight and execution must be made to happen). Caps are scaled down with
 * environment overrides so that a few payments reach them.
 */
import { env } from "cloudflare:test";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import { getInitializeAccount3Instruction, getTransferInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { bookExposure } from "../../../../src/chain/fee-payer-budget/budget";
import type { Env } from "../../../../src/env";
import { loadConfig } from "../../../../src/rails/registry";
import { uptoOpenRentLamports } from "../../../../src/rails/upto/channel-rent-caps";
import { objectLedger } from "../../../../src/settlement/settle-ports";
import { chainRpc, fundedBuyer, lamportsOf, sendAs, tokenBalance } from "../../../support/workerd/chain";
import { craftBody, memo, paymentParts, transferChecked } from "../../../support/workerd/craft-payment";
import { sellerOrigin, signedResourceChallenge, verifiedMerchant } from "../../../support/workerd/directory-fixtures";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import {
  d1FailingOn,
  d1Row,
  ledgerNamespace,
  MIRROR_SQL,
  madeUpClaim,
  objectRow,
  withObjectD1,
} from "../../../support/workerd/ledger-object";
import { DEVNET, signAsBuyer, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { uptoBody, uptoDeposit, uptoLine } from "../../../support/workerd/upto-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

type Facilitator = Awaited<ReturnType<typeof isolatedFacilitator>>;

/** A seller's own wallet as payTo (its USDC account exists), the line a stock seller writes. */
function walletLine(f: Facilitator, payTo: Address, amount = "10000"): Record<string, any> {
  return {
    scheme: "exact",
    network: DEVNET,
    asset: USDC,
    amount,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: f.feePayer },
  };
}

/** A wallet-form payment from `from` to `to`'s wallet with a 1,000-lamport priority fee (50,000 µL × 20,000 units). */
async function roundTripBody(f: Facilitator, from: KeyPairSigner, to: Address) {
  const line = walletLine(f, to);
  const parts = await paymentParts(from, line);
  return craftBody(
    line,
    [
      getSetComputeUnitLimitInstruction(20_000),
      getSetComputeUnitPriceInstruction(50_000n),
      transferChecked(parts),
      memo(crypto.randomUUID()),
    ],
    { signers: [from], feePayer: f.feePayer },
  );
}

async function bookedFor(column: "payer" | "pay_to", wallet: string) {
  const { results } = await env.DB.prepare(
    `SELECT kind, lamports, state, pool FROM fee_payer_exposure ` +
      `WHERE ${column} = ? AND kind = 'payment_fee' ORDER BY booked_at_ms`,
  )
    .bind(wallet)
    .all<{ kind: string; lamports: number; state: string; pool: string }>();
  return results;
}

/** What the strangers' pool spent in the last day (this file's D1 is shared by its tests). */
async function buyersPoolSpent(): Promise<bigint> {
  const row = await env.DB.prepare(
    "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE pool = 'buyers' AND state = 'spent' AND " +
      "booked_at_ms >= ?",
  )
    .bind(Date.now() - 86_400_000)
    .first<{ n: number }>();
  return BigInt(row?.n ?? 0);
}

describe("round trips between one's own wallets", () => {
  it(
    "20 payments back and forth: every lamport the fee payer loses is booked, and the payTo cap stops them (429) — " +
      "the USDC ends where it started",
    async () => {
      const f = await isolatedFacilitator("attack-round-trips", {
        SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS: "25000",
      });
      const a = await fundedBuyer(1_000_000);
      const b = await fundedBuyer(1_000_000);
      const feePayerBefore = await lamportsOf(f.feePayer);
      const answers: Record<string, any>[] = [];
      for (let i = 0; i < 20; i++) {
        const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
        answers.push((await f.post("/settle", await roundTripBody(f, from, to.address))).body);
      }
      const settled = answers.filter((x) => x.success === true);
      // Two payments to each wallet fit its 25,000-lamport cap (11,000 each); the rest are refused before anything is
      // sent.
      expect(settled, JSON.stringify(answers.map((x) => x.errorReason ?? "ok"))).toHaveLength(4);
      for (const refused of answers.filter((x) => x.success !== true))
        expect(refused).toMatchObject({
          errorReason: "fee_payer_spend_per_pay_to_exceeded",
          code: "RATE_LIMITED",
          transaction: "",
        });
      const lost = feePayerBefore - (await lamportsOf(f.feePayer));
      const booked = [...(await bookedFor("payer", a.address)), ...(await bookedFor("payer", b.address))];
      expect(booked.every((row) => row.state === "spent" && row.pool === "buyers")).toBe(true);
      expect(lost).toBe(BigInt(booked.reduce((sum, row) => sum + row.lamports, 0)));
      expect(lost).toBe(44_000n);
      expect(await tokenBalance(await usdcAccountOf(a.address))).toBe(1_000_000n);
      expect(await tokenBalance(await usdcAccountOf(b.address))).toBe(1_000_000n);
    },
  );
});

/** A second USDC token account of `owner` (not its associated one), funded with `amount` from its associated one. */
async function secondUsdcAccount(owner: KeyPairSigner, amount: bigint): Promise<Address> {
  const account = await generateKeyPairSigner();
  await sendAs(owner, [
    getCreateAccountInstruction({
      payer: owner,
      newAccount: account,
      lamports: 2_039_280n,
      space: 165,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeAccount3Instruction({ account: account.address, mint: USDC, owner: owner.address }),
    getTransferInstruction({
      source: await usdcAccountOf(owner.address),
      destination: account.address,
      authority: owner,
      amount,
    }),
  ]);
  return account.address;
}

describe("paying oneself", () => {
  it(
    "the payTo wallet's owner paying itself, from a second token account into its own associated one, is refused " +
      "(self_payment) at /verify and /settle; nothing is sent",
    async () => {
      const f = await isolatedFacilitator("attack-self-payment");
      const owner = await fundedBuyer(1_000_000);
      const second = await secondUsdcAccount(owner, 500_000n);
      const line = walletLine(f, owner.address);
      const parts = { ...(await paymentParts(owner, line)), sourceAta: second };
      const body = await craftBody(
        line,
        [
          getSetComputeUnitLimitInstruction(20_000),
          getSetComputeUnitPriceInstruction(1n),
          transferChecked(parts),
          memo(crypto.randomUUID()),
        ],
        { signers: [owner], feePayer: f.feePayer },
      );
      const verified = await f.post("/verify", body);
      expect(verified.status, JSON.stringify(verified.body)).toBe(400);
      expect(verified.body).toMatchObject({ isValid: false, invalidReason: "self_payment", payer: owner.address });
      const feePayerBefore = await lamportsOf(f.feePayer);
      const settled = await f.post("/settle", body);
      expect(settled.body).toMatchObject({ success: false, errorReason: "self_payment", transaction: "" });
      expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
      expect(await tokenBalance(second)).toBe(500_000n);
    },
  );

  it(
    "a vault seller paying its own vault is refused too (a payment worth a vault: nothing is fronted for it " +
      "either)",
    async () => {
      const f = await isolatedFacilitator("attack-self-payment-vault");
      const seller = await fundedBuyer(5_000_000);
      const body = await f.signedBody(seller, await f.line(USDC, "1000000", seller.address));
      const feePayerBefore = await lamportsOf(f.feePayer);
      const settled = await f.post("/settle", body);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: false, errorReason: "self_payment" });
      expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
    },
  );

  it("an upto buyer opening a channel to its own wallet is refused (self_payment) at /verify and /settle", async () => {
    const f = await isolatedFacilitator("attack-self-payment-upto");
    const authorizer = await generateKeyPairSigner();
    const buyer = await fundedBuyer(5_000_000);
    const line = await uptoLine({
      feePayer: f.feePayer,
      authorizer: authorizer.address,
      amount: "1000000",
      payTo: buyer.address,
    });
    const deposit = await uptoDeposit(buyer, line);
    const feePayerBefore = await lamportsOf(f.feePayer);
    // /verify checks the deposit as the buyer signed it; the seller's server marks it a deposit when it settles.
    const verified = await f.post("/verify", uptoBody(line, deposit));
    expect(verified.body, JSON.stringify(verified.body)).toMatchObject({
      isValid: false,
      invalidReason: "self_payment",
    });
    const settled = await f.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: false, errorReason: "self_payment" });
    expect(await lamportsOf(f.feePayer)).toBe(feePayerBefore);
  });
});

/** A seller that proved who it is: a wallet-signed registration and an origin whose manifest names the wallet. */
async function provenSeller(): Promise<KeyPairSigner> {
  const seller = await verifiedMerchant(sellerOrigin(), { payToForm: "wallet" });
  const registered = await call("/resources/register", {
    method: "POST",
    json: {
      ...(await signedResourceChallenge(seller, "resource:register")),
      resource: {
        resourceUrl: `${sellerOrigin()}/paid-${crypto.randomUUID().slice(0, 8)}`,
        httpMethod: "GET",
        title: "Paid",
        scheme: "exact",
      },
    },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const row = await env.DB.prepare("SELECT proven_origin FROM providers WHERE wallet_pubkey = ?")
    .bind(seller.address)
    .first<{ proven_origin: string | null }>();
  expect(row?.proven_origin).toBe(sellerOrigin());
  return seller;
}

describe("pools apart: strangers filling theirs stop neither the operator's jobs nor a proven seller's buyers", () => {
  it(
    "with the strangers' pool full, a stranger's payment is refused (503), a job still books, and an honest buyer " +
      "of a proven seller is paid at the recommended price — until that seller's own quota is spent (429)",
    async () => {
      const a = await fundedBuyer(1_000_000);
      const b = await fundedBuyer(1_000_000);
      const seller = await provenSeller();
      const honest = await fundedBuyer(1_000_000);
      // Room in the strangers' pool for two round trips (11,000 each) beyond what this file spent there before.
      const f = await isolatedFacilitator("attack-pools", {
        SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS: String((await buyersPoolSpent()) + 22_000n),
        SVC_FEE_PAYER_MAX_SPEND_PER_PROVEN_SELLER_PER_DAY_LAMPORTS: "20002",
      });
      for (let i = 0; i < 2; i++)
        expect((await f.post("/settle", await roundTripBody(f, i ? b : a, (i ? a : b).address))).body).toMatchObject({
          success: true,
        });
      const stranger = await f.post("/settle", await roundTripBody(f, a, b.address));
      expect(stranger.status, JSON.stringify(stranger.body)).toBe(503);
      expect(stranger.body).toMatchObject({ errorReason: "fee_payer_buyer_spend_per_day_exceeded", transaction: "" });
      expect(stranger.body.errorMessage).toMatch(/SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS/);

      // The operator's jobs have their own pool: a sweep's fee books as if no stranger had paid anything.
      const config = await loadConfig({ ...(env as unknown as Env), ...f.env } as Env);
      const sweepFee = await bookExposure(config, env.DB, {
        bookingId: `sweep_fees:attack-pools:${crypto.randomUUID()}`,
        rail: "sweep",
        kind: "network_fee",
        payer: null,
        payTo: null,
        lamports: 5_000n,
      });
      expect(sweepFee).toEqual({ ok: true });

      // The proven seller's buyers pay out of the seller's own quota, at the recommended price (10,001 lamports each).
      const pay = async () => {
        const built = await f.post("/build-exact-payment-tx", {
          payer: honest.address,
          accepted: walletLine(f, seller.address),
        });
        expect(built.status, JSON.stringify(built.body)).toBe(200);
        const body = built.body.verifyBodyTemplate;
        body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, honest);
        return f.post("/settle", body);
      };
      for (let i = 0; i < 2; i++) expect((await pay()).body).toMatchObject({ success: true });
      expect((await bookedFor("pay_to", seller.address)).map((r) => r.pool)).toEqual(["sellers", "sellers"]);
      const quota = await pay();
      expect(quota.status, JSON.stringify(quota.body)).toBe(429);
      expect(quota.body).toMatchObject({ errorReason: "fee_payer_seller_quota_exceeded" });

      // /health shows the pools apart, each against its own cap.
      const health = (await callWithEnv(f.env, "/health")).body.feePayerExposure;
      expect(BigInt(health.spentLast24hLamports.byPool.sellers)).toBeGreaterThanOrEqual(20_002n);
      expect(health.caps.buyerSpendPerDay).toMatchObject({
        key: "SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS",
        headroom: "0",
      });
      expect(health.caps.spendPerProvenSellerPerDay).toMatchObject({ limit: "20002" });
      expect(BigInt(health.caps.spendPerDay.used)).toBe(BigInt(health.spentLast24hLamports.byPool.jobs));
    },
  );
});

describe("paid is paid", () => {
  it(
    "a payment that passed preflight and failed on chain keeps its fee booked whatever later calls answer; each " +
      "answer names its signature; the buyer's next payment is refused past " +
      "SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY",
    async () => {
      const faults = faultScenario();
      const f = await isolatedFacilitator("attack-paid-is-paid", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "2000",
        SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY: "1",
      });
      const buyer = await fundedBuyer(1_000_000);
      const seller = await fundedBuyer(0);
      await chainRpc("requestTokenAirdrop", [seller.address, 1]);
      const body = await roundTripBody(f, buyer, seller.address);
      // The send is held at the RPC front, then forwarded without preflight and its answer dropped; meanwhile the buyer
      // empties its token account, so the transfer executes and fails on chain: the fee is paid.
      await faults.setFaults({ delayMs: { sendTransaction: 1_500 }, skipPreflight: true, dropSendAnswer: true });
      const settling = f.post("/settle", body);
      const deadline = Date.now() + 10_000;
      while (((await faults.calls()).sendTransaction ?? 0) < 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const source = await usdcAccountOf(buyer.address);
      await sendAs(buyer, [
        getTransferInstruction({
          source,
          destination: await usdcAccountOf(seller.address),
          authority: buyer,
          amount: await tokenBalance(source),
        }),
      ]);
      const pending = await settling;
      await faults.setFaults({});
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      const signature = pending.body.transaction as string;
      // Retries: each hears the failure with its signature, and the booking stays spent.
      for (let i = 0; i < 3; i++) {
        const retry = await f.post("/settle", body);
        expect(retry.body, JSON.stringify(retry.body)).toMatchObject({ success: false, transaction: signature });
        expect(retry.body.errorReason).not.toBe("settlement_pending");
      }
      await new Promise((resolve) => setTimeout(resolve, 300)); // the ledger object's mirror after the last answer
      expect(await bookedFor("payer", buyer.address)).toEqual([
        { kind: "payment_fee", lamports: 11_000, state: "spent", pool: "buyers" },
      ]);

      // One failure at the fee payer's cost is this deployment's limit: the buyer's next payment is refused unsent.
      await chainRpc("requestTokenAirdrop", [buyer.address, 100_000]);
      const next = await f.post("/settle", await roundTripBody(f, buyer, seller.address));
      expect(next.status, JSON.stringify(next.body)).toBe(429);
      expect(next.body).toMatchObject({ errorReason: "fee_payer_failures_per_payer_exceeded", transaction: "" });
    },
  );
});

describe("one balance check", () => {
  it(
    "the budget's minimum reads a low balance again before it refuses: an upto deposit refused below " +
      "SVC_FEE_PAYER_MIN_LAMPORTS settles within 10 s of a top-up",
    async () => {
      const f = await isolatedFacilitator("attack-top-up", { SVC_FEE_PAYER_MIN_LAMPORTS: "200000000" }, 200_000_000);
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const line = await uptoLine({ feePayer: f.feePayer, authorizer: authorizer.address, amount: "1000000" });
      const payload = await uptoDeposit(buyer, line);
      const body = uptoBody(line, { ...payload, type: "deposit" });
      const refused = await f.post("/settle", body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body).toMatchObject({ errorReason: "fee_payer_below_minimum" });

      await chainRpc("requestAirdrop", [f.feePayer, 1_000_000_000]);
      const toppedUpAt = Date.now();
      let answer = await f.post("/settle", body);
      while (answer.body.errorReason === "fee_payer_below_minimum" && Date.now() - toppedUpAt < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = await f.post("/settle", body);
      }
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: true });
      expect(Date.now() - toppedUpAt).toBeLessThan(10_000);
      expect(uptoOpenRentLamports(TOKEN_PROGRAM_ADDRESS)).toBeGreaterThan(0n);
    },
  );
});

describe("release order in the ledger objects", () => {
  it(
    "a call whose send was refused at preflight gives back only its own row: a payment another call sent and " +
      "reported keeps its row in the object and in D1, and a claim from another place hears it",
    async () => {
      const hash = `release-${crypto.randomUUID().replaceAll("-", "")}`;
      const here = objectLedger(ledgerNamespace(), "HERE1");
      const claim = madeUpClaim(hash);
      expect(await here.claim(claim)).toEqual({ claimed: true });
      // D1 has not heard of the report yet (the mirror is down): only the object knows the payment was reported.
      const mirrorDown = d1FailingOn(MIRROR_SQL);
      const patched = await withObjectD1(hash, mirrorDown.db);
      // Another call took the lease over and reported the payment's success (the same bytes landed).
      expect(await here.reportSuccess(hash, "another-call", null, Date.now())).toBe(true);
      // The first call, whose own send the preflight refused, gives its row back: nothing may go.
      await here.release(hash, claim.leaseId);
      expect(await objectRow(hash)).toMatchObject({ state: "confirmed" });
      expect(await d1Row(hash)).not.toBeNull();
      mirrorDown.heal();
      await patched.restore();
      const elsewhere = objectLedger(ledgerNamespace(), "THERE1");
      const again = await elsewhere.claim(madeUpClaim(hash));
      expect(again).toMatchObject({ claimed: false, existing: { state: "confirmed" } });
    },
  );
});
