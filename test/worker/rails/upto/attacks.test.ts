import { AccountRole, type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { UPTO_CLUSTER_DEFAULTS } from "../../../../src/rails/upto/cluster-defaults";
import {
  chainRpc,
  fundedBuyer,
  lamportsOf,
  latestBlockhash,
  tokenBalance,
  useChain,
} from "../../../support/workerd/chain";
import { MEMO_PROGRAM, TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { holdFirstObjectBatch } from "../../../support/workerd/ledger-object";
import { drainAndCloseUsdcAccount, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import {
  channelAccount,
  type DepositOptions,
  uptoBody,
  uptoClaimBody,
  uptoDeposit,
  uptoLine,
  uptoSeller,
} from "../../../support/workerd/upto-fixtures";

/**
 * The exact rail's attack tests, repeated for upto where they apply (issue 24 §6). Every deposit below is a real
 * buyer-signed channel open against the local chain's payment-channels program; each refusal must come before the
 * fee payer signs anything, so its lamports do not move. The claim attacks run against a channel really opened here.
 */

type Facilitator = Awaited<ReturnType<typeof isolatedFacilitator>>;

async function world(label: string, extraEnv: Record<string, unknown> = {}) {
  const facilitator = await isolatedFacilitator(label, extraEnv);
  const authorizer = await generateKeyPairSigner();
  const buyer = await fundedBuyer(5_000_000);
  const line = await uptoLine({ feePayer: facilitator.feePayer, authorizer: authorizer.address });
  return { facilitator, authorizer, buyer, line };
}

async function usdcOf(owner: Address): Promise<bigint> {
  return tokenBalance(await usdcAccountOf(owner));
}

/** Settles a bent deposit: refused with `reason` (and the message matching `message`), fee payer untouched. */
async function expectDepositRefused(
  w: { facilitator: Facilitator; buyer: KeyPairSigner; line: Record<string, any> },
  options: DepositOptions,
  reason: string,
  message?: RegExp,
) {
  const deposit = await uptoDeposit(w.buyer, w.line, options);
  const before = await lamportsOf(w.facilitator.feePayer);
  const verified = await w.facilitator.post("/verify", uptoBody(w.line, deposit));
  expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ isValid: false, invalidReason: reason });
  const settled = await w.facilitator.post("/settle", uptoBody(w.line, { ...deposit, type: "deposit" }));
  expect(settled.status, JSON.stringify(settled.body)).toBe(400);
  expect(settled.body).toMatchObject({ success: false, errorReason: reason, transaction: "" });
  if (message) expect(settled.body.errorMessage).toMatch(message);
  expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
  expect(await usdcOf(w.buyer.address)).toBe(5_000_000n);
}

const OPEN_TX = "invalid_upto_svm_payload_open_transaction";

describe("upto deposit: fee payer isolation as strict as exact", () => {
  it("baseline: the untouched deposit verifies", async () => {
    const w = await world("upto-attack-baseline");
    const verified = await w.facilitator.post("/verify", uptoBody(w.line, await uptoDeposit(w.buyer, w.line)));
    expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ isValid: true });
  });

  it(
    "the fee payer as the token authority: a TransferChecked out of the fee payer's account added after " + "Open",
    async () => {
      const w = await world("upto-attack-authority");
      const feePayerAta = (
        await findAssociatedTokenPda({ owner: w.facilitator.feePayer, mint: USDC, tokenProgram: TOKEN_PROGRAM })
      )[0];
      const drain = getTransferCheckedInstruction({
        source: feePayerAta,
        mint: USDC,
        destination: await usdcAccountOf(w.buyer.address),
        authority: w.facilitator.feePayer as never,
        amount: 1n,
        decimals: 6,
      });
      await expectDepositRefused(
        w,
        { instructions: (p) => [...p.computeBudget, p.open, drain] },
        OPEN_TX,
        /fee payer appears in instruction 3 \(account 3\)/,
      );
    },
  );

  it(
    "the fee payer as the buyer (payload.from = the fee payer: the deposit would come out of its token " + "account)",
    async () => {
      const w = await world("upto-attack-self");
      const deposit = await uptoDeposit(w.buyer, w.line);
      const before = await lamportsOf(w.facilitator.feePayer);
      const settled = await w.facilitator.post(
        "/settle",
        uptoBody(w.line, { ...deposit, type: "deposit", from: w.facilitator.feePayer }),
      );
      expect(settled.body).toMatchObject({ success: false, transaction: "" });
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
    },
  );

  it("the fee payer in another Open slot (as the voucher key) or as a Memo account", async () => {
    const w = await world("upto-attack-slot");
    await expectDepositRefused(
      w,
      { open: { authorizedSigner: w.facilitator.feePayer } },
      OPEN_TX,
      /fee payer appears in instruction 2 \(account 4\)/,
    );
    const memo: Instruction = {
      programAddress: MEMO_PROGRAM,
      accounts: [{ address: w.facilitator.feePayer, role: AccountRole.READONLY }],
      data: new TextEncoder().encode("x"),
    };
    await expectDepositRefused(
      w,
      { instructions: (p) => [...p.computeBudget, p.open, memo] },
      OPEN_TX,
      /fee payer appears in instruction 3/,
    );
  });

  it("extra instructions: a SOL transfer from the fee payer, a second Memo, an instruction before Open", async () => {
    const w = await world("upto-attack-extra");
    const sol = getTransferSolInstruction({
      source: w.facilitator.feePayer as never,
      destination: w.buyer.address,
      amount: 1n,
    });
    await expectDepositRefused(
      w,
      { instructions: (p) => [...p.computeBudget, p.open, p.memo, sol] },
      OPEN_TX,
      /fee payer appears in instruction 4 \(account 0\)/,
    );
    await expectDepositRefused(
      w,
      { instructions: (p) => [...p.computeBudget, p.open, p.memo, p.memo] },
      OPEN_TX,
      /at most one instruction/,
    );
    await expectDepositRefused(
      w,
      { instructions: (p) => [...p.computeBudget, p.memo, p.open] },
      OPEN_TX,
      /must be the payment-channels Open/,
    );
  });

  it("an extra required signer (every signature costs the fee payer 5,000 lamports)", async () => {
    const w = await world("upto-attack-signer");
    const stranger = await generateKeyPairSigner();
    const signedMemo: Instruction = {
      programAddress: MEMO_PROGRAM,
      accounts: [{ address: stranger.address, role: AccountRole.READONLY_SIGNER, signer: stranger } as never],
      data: new TextEncoder().encode("x"),
    };
    await expectDepositRefused(
      w,
      { instructions: (p) => [...p.computeBudget, p.open, signedMemo], signers: [stranger] },
      OPEN_TX,
      /requires 3 signatures/,
    );
  });

  it(
    "a third required signer inside the Open itself (the voucher key marked a read-only signer and co-signed) is " +
      "refused by the signer-count rule",
    async () => {
      const w = await world("upto-attack-third-signer");
      const authorizer = await generateKeyPairSigner();
      const line = await uptoLine({ feePayer: w.facilitator.feePayer, authorizer: authorizer.address });
      // Only this differs from the honest open: account 4 of Open signs. Every other rule holds (writable accounts, the
      // Open's roles, the shape), so only the count of required signatures (fee payer + buyer) can refuse it.
      const coSigned = (open: Instruction): Instruction => ({
        ...open,
        accounts: open.accounts!.map((meta, i) =>
          i === 4 ? ({ ...meta, role: AccountRole.READONLY_SIGNER, signer: authorizer } as never) : meta,
        ),
      });
      const deposit = await uptoDeposit(w.buyer, line, {
        instructions: (p) => [...p.computeBudget, coSigned(p.open), p.memo],
        signers: [authorizer],
      });
      const before = await lamportsOf(w.facilitator.feePayer);
      for (const path of ["/verify", "/settle"]) {
        const answer = await w.facilitator.post(
          path,
          uptoBody(line, path === "/settle" ? { ...deposit, type: "deposit" } : deposit),
        );
        const reason = path === "/verify" ? answer.body.invalidReason : answer.body.errorReason;
        const message = path === "/verify" ? answer.body.invalidMessage : answer.body.errorMessage;
        expect(reason, JSON.stringify(answer.body)).toBe(OPEN_TX);
        expect(message).toMatch(/requires 3 signatures; an upto deposit has exactly 2 writable signers/);
      }
      // Nothing was sent: no fee, no channel, the buyer's tokens where they were.
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
      expect(await channelAccount(deposit.channelId)).toBeNull();
      expect(await usdcOf(w.buyer.address)).toBe(5_000_000n);
    },
  );

  it(
    "compute: a limit above the cap, a price above the cap, a price without a limit whose implied limit is above " +
      "the cap",
    async () => {
      const w = await world("upto-attack-compute");
      await expectDepositRefused(
        w,
        { instructions: (p) => [getSetComputeUnitLimitInstruction(1_400_000), p.computeBudget[1]!, p.open, p.memo] },
        OPEN_TX,
        /compute unit limit 1400000 exceeds/,
      );
      await expectDepositRefused(
        w,
        { instructions: (p) => [p.computeBudget[0]!, getSetComputeUnitPriceInstruction(50_000_000n), p.open, p.memo] },
        OPEN_TX,
        /compute unit price 50000000/,
      );
      await expectDepositRefused(
        w,
        { instructions: (p) => [getSetComputeUnitPriceInstruction(40_000n), p.open, p.memo] },
        OPEN_TX,
        /implied limit/,
      );
      await expectDepositRefused(
        w,
        { instructions: (p) => [p.computeBudget[1]!, p.computeBudget[0]!, p.open, p.memo] },
        OPEN_TX,
        /SetComputeUnitLimit followed by/,
      );
    },
  );

  it(
    "a fee payer other than the facilitator, a deposit other than the ceiling, a split that does not pay " + "payTo",
    async () => {
      const w = await world("upto-attack-terms");
      const other = await generateKeyPairSigner();
      await expectDepositRefused(w, { feePayer: other.address }, OPEN_TX, /fee payer/);
      await expectDepositRefused(w, { open: { deposit: 1n } }, OPEN_TX, /deposit 1 is not the authorized ceiling/);
      await expectDepositRefused(
        w,
        { open: { recipients: [{ recipient: w.buyer.address, bps: 10_000 }] } },
        OPEN_TX,
        /split must pay/,
      );
      await expectDepositRefused(w, { open: { gracePeriod: 1 } }, OPEN_TX, /grace period 1/);
    },
  );

  it(
    "a withdraw delay outside the advertised bounds, and a payment that runs longer than the channel " + "lifetime",
    async () => {
      const w = await world("upto-attack-bounds");
      const shortDelay = { ...w.line, extra: { ...w.line.extra, withdrawDelay: 5 } };
      const deposit = await uptoDeposit(w.buyer, shortDelay);
      const refused = await w.facilitator.post("/settle", uptoBody(shortDelay, { ...deposit, type: "deposit" }));
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_withdraw_delay_out_of_bounds",
      });
      const longLine = { ...w.line, maxTimeoutSeconds: 7_200 };
      const long = await w.facilitator.post(
        "/settle",
        uptoBody(longLine, { ...(await uptoDeposit(w.buyer, longLine)), type: "deposit" }),
      );
      expect(long.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payload_channel_lifetime_exceeded",
      });
    },
  );
});

describe("upto deposit: the official facilitator's reasons for an open that is not the payload's", () => {
  async function expectVerifyRefused(
    w: { facilitator: Facilitator; line: Record<string, any> },
    payload: Record<string, any>,
    reason: string,
  ) {
    const before = await lamportsOf(w.facilitator.feePayer);
    const verified = await w.facilitator.post("/verify", uptoBody(w.line, payload));
    expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ isValid: false, invalidReason: reason });
    const settled = await w.facilitator.post("/settle", uptoBody(w.line, { ...payload, type: "deposit" }));
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({
      success: false,
      errorReason: reason,
      transaction: "",
    });
    expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
  }

  it("payload.channelId, payload.nonce or payload.from not the open's; channel seeds that are not u64", async () => {
    const w = await world("upto-reasons-payload");
    const deposit = await uptoDeposit(w.buyer, w.line);
    await expectVerifyRefused(
      w,
      { ...deposit, channelId: (await generateKeyPairSigner()).address },
      "invalid_upto_svm_payload_channel_id",
    );
    await expectVerifyRefused(
      w,
      { ...deposit, nonce: (BigInt(deposit.nonce) ^ 1n).toString() },
      "invalid_upto_svm_payload_nonce",
    );
    await expectVerifyRefused(
      w,
      { ...deposit, from: (await generateKeyPairSigner()).address },
      "invalid_upto_svm_payload_payer_mismatch",
    );
    await expectVerifyRefused(w, { ...deposit, openSlot: "recent" }, "invalid_upto_svm_payload_channel_seed");
    await expectVerifyRefused(
      w,
      { ...deposit, nonce: "18446744073709551616" },
      "invalid_upto_svm_payload_channel_seed",
    );
    // The untouched payload still verifies.
    expect((await w.facilitator.post("/verify", uptoBody(w.line, deposit))).body).toMatchObject({ isValid: true });
  });

  it(
    "an open the program refuses in simulation (the buyer has no token account) is " +
      "invalid_upto_svm_settlement_simulation, at /verify and at /settle's preflight",
    async () => {
      const w = await world("upto-reasons-simulation");
      const deposit = await uptoDeposit(await generateKeyPairSigner(), w.line);
      await expectVerifyRefused(w, deposit, "invalid_upto_svm_settlement_simulation");
    },
  );
});

describe("upto opens worth their cost (issue 32 §2)", () => {
  it(
    "a ceiling below the minimum (0.01 of a whole token by default) is refused by the builder, /verify and /settle; " +
      "the operator may set its own",
    async () => {
      const w = await world("upto-attack-minimum");
      const tiny = { ...w.line, amount: "9999" };
      const built = await w.facilitator.post("/build-upto-deposit-tx", { payer: w.buyer.address, accepted: tiny });
      expect(built.status, JSON.stringify(built.body)).toBe(400);
      expect(built.body.error).toMatch(/ceiling 9999 is below this facilitator's minimum of 10000 raw units/);
      await expectDepositRefused(
        { ...w, line: tiny },
        {},
        "invalid_upto_svm_payload_amount_below_minimum",
        /minimum of 10000 raw units/,
      );
      await expectDepositRefused(
        { ...w, line: { ...w.line, amount: "1" } },
        {},
        "invalid_upto_svm_payload_amount_below_minimum",
      );
      const atMinimum = { ...w.line, amount: "10000" };
      expect(
        (await w.facilitator.post("/verify", uptoBody(atMinimum, await uptoDeposit(w.buyer, atMinimum)))).body,
      ).toMatchObject({ isValid: true });

      const own = await world("upto-attack-minimum-own", {
        SVC_UPTO_MIN_CEILING_RAW_BY_MINT: JSON.stringify({ [USDC]: "1" }),
      });
      const one = { ...own.line, amount: "1" };
      expect(
        (await own.facilitator.post("/verify", uptoBody(one, await uptoDeposit(own.buyer, one)))).body,
      ).toMatchObject({ isValid: true });
    },
  );

  it(
    "open-mint mode: a mint a stranger can freeze is refused before anything is signed; a trusted freeze authority, " +
      "or an allowlist, is served",
    async () => {
      const freezer = await generateKeyPairSigner();
      const { mint } = await chainRpc<{ mint: Address }>("localnet_createMint", [
        { decimals: 6, freezeAuthority: freezer.address },
      ]);
      // the treasury's token account
      await chainRpc("requestTokenAirdrop", [UPTO_CLUSTER_DEFAULTS.devnet.treasuryOwner, 1, mint]);
      const w = await world("upto-attack-freeze");
      await chainRpc("requestTokenAirdrop", [w.buyer.address, 5_000_000, mint]);
      const line = { ...w.line, asset: mint };
      const built = await w.facilitator.post("/build-upto-deposit-tx", { payer: w.buyer.address, accepted: line });
      expect(built.status, JSON.stringify(built.body)).toBe(400);
      expect(built.body.error).toMatch(new RegExp(`freeze authority \\(${freezer.address}\\)`));
      expect(built.body.reason).toBe("invalid_upto_svm_payload_mint_freeze_authority");
      const deposit = await uptoDeposit(w.buyer, line);
      const before = await lamportsOf(w.facilitator.feePayer);
      expect((await w.facilitator.post("/verify", uptoBody(line, deposit))).body).toMatchObject({
        isValid: false,
        invalidReason: "invalid_upto_svm_payload_mint_freeze_authority",
      });
      const settled = await w.facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(settled.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payload_mint_freeze_authority",
        transaction: "",
      });
      expect(settled.body.errorMessage).toMatch(/SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES/);
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
      expect(await channelAccount(deposit.channelId)).toBeNull();

      for (const trust of [
        { SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES: freezer.address },
        { SVC_ALLOWED_PAYMENT_MINTS: `${USDC} ${mint}` },
      ]) {
        const trusted = await world("upto-attack-freeze-trusted", trust);
        await chainRpc("requestTokenAirdrop", [trusted.buyer.address, 5_000_000, mint]);
        await chainRpc("requestTokenAirdrop", [trusted.line.payTo, 1, mint]); // the seller's account for this mint
        const trustedLine = { ...trusted.line, asset: mint };
        const verified = await trusted.facilitator.post(
          "/verify",
          uptoBody(trustedLine, await uptoDeposit(trusted.buyer, trustedLine)),
        );
        expect(verified.body, JSON.stringify(trust)).toMatchObject({ isValid: true });
      }
    },
  );
});

describe("upto claim: never above the ceiling, never twice", () => {
  async function opened(label: string, extraEnv: Record<string, unknown> = {}) {
    const w = await world(label, extraEnv);
    const deposit = await uptoDeposit(w.buyer, w.line);
    const settled = await w.facilitator.post("/settle", uptoBody(w.line, { ...deposit, type: "deposit" }));
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
    return { ...w, deposit };
  }

  it(
    "a claim above the authorized ceiling is refused before anything is signed (requirements, payload, " + "voucher)",
    async () => {
      const w = await opened("upto-attack-ceiling");
      const before = await lamportsOf(w.facilitator.feePayer);
      const over = await uptoClaimBody(w.line, w.deposit, 2_000_001n, w.authorizer);
      const refused = await w.facilitator.post("/settle", over);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payload_settlement_exceeds_amount",
        transaction: "",
      });
      // Raising the ceiling in accepted and payload too: the channel's deposit is the ceiling, and the rest no longer
      // matches it.
      const raisedLine = { ...w.line, amount: "3000000" };
      const raised = await uptoClaimBody(
        raisedLine,
        { ...w.deposit, maxAmount: "3000000", deposit: "3000000" },
        2_500_000n,
        w.authorizer,
      );
      const raisedRefused = await w.facilitator.post("/settle", raised);
      expect(raisedRefused.body).toMatchObject({ success: false, transaction: "" });
      expect(raisedRefused.body.errorReason).toMatch(
        /^invalid_upto_svm_(channel_state|payload_settlement_exceeds_amount)$/,
      );
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
      expect(await usdcOf(w.line.payTo)).toBe(1n);
    },
  );

  it(
    "each ceiling check refuses in its own words: the charge above accepted's amount (the common checks), above " +
      "payload.maxAmount (the settle), above the channel's deposit (the claim rules, " +
      "test/unit/rails/upto/claim-rules.test.ts)",
    async () => {
      const w = await opened("upto-attack-ceiling-layers");
      const before = await lamportsOf(w.facilitator.feePayer);
      const aboveAccepted = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(w.line, w.deposit, 2_000_001n, w.authorizer),
      );
      expect(aboveAccepted.body).toMatchObject({
        errorReason: "invalid_upto_svm_payload_settlement_exceeds_amount",
        transaction: "",
      });
      expect(aboveAccepted.body.errorMessage).toBe("The charged amount 2000001 exceeds the authorized ceiling 2000000");
      // accepted's amount raised while the payload keeps the ceiling the buyer signed: the settle's own check refuses.
      const raisedLine = { ...w.line, amount: "3000000" };
      const aboveSigned = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(raisedLine, w.deposit, 2_500_000n, w.authorizer),
      );
      expect(aboveSigned.body).toMatchObject({
        errorReason: "invalid_upto_svm_payload_settlement_exceeds_amount",
        transaction: "",
      });
      expect(aboveSigned.body.errorMessage).toBe(
        "The charge 2500000 exceeds payload.maxAmount 2000000, the ceiling the buyer signed",
      );
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
    },
  );

  it(
    "concurrent claims of one channel (the same body, and other amounts): exactly one success, one " + "transfer",
    async () => {
      const w = await opened("upto-attack-concurrent");
      const bodies = [
        await uptoClaimBody(w.line, w.deposit, 600_000n, w.authorizer),
        await uptoClaimBody(w.line, w.deposit, 600_000n, w.authorizer),
        await uptoClaimBody(w.line, w.deposit, 600_000n, w.authorizer),
        await uptoClaimBody(w.line, w.deposit, 1_900_000n, w.authorizer),
        await uptoClaimBody(w.line, w.deposit, 1_000n, w.authorizer),
      ];
      const answers = await Promise.all(bodies.map((body) => w.facilitator.post("/settle", body)));
      const successes = answers.filter((a) => a.body.success === true);
      expect(successes, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
      for (const answer of answers) {
        if (answer.body.success) continue;
        expect(["duplicate_settlement", "settlement_pending", "invalid_upto_svm_channel_state"]).toContain(
          answer.body.errorReason,
        );
      }
      const paid = (await usdcOf(w.line.payTo)) - 1n;
      expect([600_000n, 1_900_000n, 1_000n]).toContain(paid);
      expect(await usdcOf(w.buyer.address)).toBe(5_000_000n - paid);
      // The one success names what payTo received, not what another call asked for.
      expect(BigInt(successes[0]!.body.amount)).toBe(paid);
    },
  );

  it(
    "a claim for a different amount while the channel's first claim is still pending is refused as a duplicate; the " +
      "first one's success names what payTo received",
    async () => {
      const faults = await faultScenario();
      const w = await opened("upto-attack-pending-other", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
      });
      const first = await uptoClaimBody(w.line, w.deposit, 600_000n, w.authorizer);
      await faults.setFaults({ dropSendAnswer: true });
      const pending = await w.facilitator.post("/settle", first, { "X-Correlation-ID": "pending-other" });
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
      await faults.setFaults({});

      // The seller's server (or anyone with the payload) asks again for more while the first claim is unanswered.
      const other = await w.facilitator.post(
        "/settle",
        await uptoClaimBody(w.line, w.deposit, 1_900_000n, w.authorizer),
      );
      expect(other.status, JSON.stringify(other.body)).toBe(400);
      expect(other.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
      expect(other.body.errorMessage).toMatch(/already claimed for 600000/);

      const retried = await w.facilitator.post("/settle", first, { "X-Correlation-ID": "pending-other" });
      expect(retried.body, JSON.stringify(retried.body)).toMatchObject({
        success: true,
        amount: "600000",
        transaction: pending.body.transaction,
      });
      expect(await usdcOf(w.line.payTo)).toBe(1n + 600_000n);
      expect(await usdcOf(w.buyer.address)).toBe(5_000_000n - 600_000n);
    },
  );

  it(
    "a claim whose charge the program would pay to its treasury (payTo's token account closed since the deposit) is " +
      "refused before signing; once it exists again, the claim settles",
    async () => {
      // The deposit needs payTo's account (a deposit no claim could pay is refused: deposit-claim-cancel.test.ts); the
      // seller closes it between the deposit and the claim.
      const sellerWallet = await fundedBuyer(1, 1_000_000_000);
      const seller = sellerWallet.address;
      const w = await world("upto-attack-payout");
      const line = { ...w.line, payTo: seller };
      const deposit = await uptoDeposit(w.buyer, line);
      const opened = await w.facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(opened.body, JSON.stringify(opened.body)).toMatchObject({ success: true });
      await drainAndCloseUsdcAccount(sellerWallet, await usdcAccountOf(await uptoSeller()));
      const claim = await uptoClaimBody(line, deposit, 750_000n, w.authorizer);
      const before = await lamportsOf(w.facilitator.feePayer);
      const refused = await w.facilitator.post("/settle", claim);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payout_account_unusable",
        transaction: "",
      });
      expect(refused.body.errorMessage).toMatch(/does not exist.*treasury/);
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
      expect(await usdcOf(w.buyer.address)).toBe(5_000_000n - 2_000_000n); // the deposit is still in the channel

      await chainRpc("requestTokenAirdrop", [seller, 1]); // the seller creates its account
      const settled = await w.facilitator.post("/settle", claim);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
      expect(await usdcOf(seller)).toBe(1n + 750_000n);
      expect(await usdcOf(w.buyer.address)).toBe(5_000_000n - 750_000n);
    },
  );

  it(
    "a claim of a channel this facilitator did not open (the buyer opened it paying its own rent) is " + "refused",
    async () => {
      const w = await world("upto-attack-foreign");
      const deposit = await uptoDeposit(w.buyer, w.line);
      const before = await lamportsOf(w.facilitator.feePayer);
      const claimed = await w.facilitator.post("/settle", await uptoClaimBody(w.line, deposit, 10n, w.authorizer));
      expect(claimed.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_channel_state",
        transaction: "",
      });
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
    },
  );
});

describe("upto claim that loses the race to store the channel's claim", () => {
  it(
    "a claim for another amount that read the channel before the first claim was stored, and stores after it, is " +
      "refused as a duplicate",
    async () => {
      const faults = await faultScenario();
      const w = await world("upto-race-other-amount", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
      });
      const deposit = await uptoDeposit(w.buyer, w.line);
      expect(
        (await w.facilitator.post("/settle", uptoBody(w.line, { ...deposit, type: "deposit" }))).body,
      ).toMatchObject({ success: true });

      // B (1,900,000) has read the channel (no claim yet) and signed its own claim; it stops just before its ledger
      // claim commits, which stores it on the channel.
      const gate = await holdFirstObjectBatch((sql) => sql.includes("SET claim_message_hash"));
      const late = w.facilitator.post("/settle", await uptoClaimBody(w.line, deposit, 1_900_000n, w.authorizer));
      await gate.reached;
      // A (600,000) stores its claim and sends it; its answer is lost, so it is still pending when B goes on.
      const first = await uptoClaimBody(w.line, deposit, 600_000n, w.authorizer);
      await faults.setFaults({ dropSendAnswer: true });
      const pending = await w.facilitator.post("/settle", first, { "X-Correlation-ID": "race-first" });
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      await faults.setFaults({});

      gate.open();
      const lost = await late;
      await gate.restore();
      expect(lost.status, JSON.stringify(lost.body)).toBe(400);
      expect(lost.body).toMatchObject({ success: false, errorReason: "duplicate_settlement", transaction: "" });
      expect(lost.body.errorMessage).toMatch(/already claimed for 600000/);
      const retried = await w.facilitator.post("/settle", first, { "X-Correlation-ID": "race-first" });
      expect(retried.body, JSON.stringify(retried.body)).toMatchObject({ success: true, amount: "600000" });
      expect(await usdcOf(w.line.payTo)).toBe(1n + 600_000n);
    },
  );
});

describe("upto under RPC faults: a dropped send answer never settles twice", () => {
  it(
    "deposit and claim: 202 pending with the signature, then the retry reports the one landed " + "transaction",
    async () => {
      const faults = await faultScenario();
      const w = await world("upto-fault-drop", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "2000",
      });
      const deposit = await uptoDeposit(w.buyer, w.line);
      const depositBody = uptoBody(w.line, { ...deposit, type: "deposit" });
      await faults.setFaults({ dropSendAnswer: true });
      const droppedDeposit = await w.facilitator.post("/settle", depositBody);
      expect(droppedDeposit.status, JSON.stringify(droppedDeposit.body)).toBe(202);
      expect(droppedDeposit.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
      await faults.setFaults({});
      const depositRetry = await w.facilitator.post("/settle", depositBody);
      expect(depositRetry.body, JSON.stringify(depositRetry.body)).toMatchObject({
        success: true,
        transaction: droppedDeposit.body.transaction,
      });
      expect(await usdcOf(w.buyer.address)).toBe(3_000_000n);

      const claim = await uptoClaimBody(w.line, deposit, 750_000n, w.authorizer);
      await faults.setFaults({ dropSendAnswer: true });
      const droppedClaim = await w.facilitator.post("/settle", claim);
      expect(droppedClaim.status, JSON.stringify(droppedClaim.body)).toBe(202);
      expect(droppedClaim.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      await faults.setFaults({});
      const claimRetry = await w.facilitator.post("/settle", claim);
      expect(claimRetry.body, JSON.stringify(claimRetry.body)).toMatchObject({
        success: true,
        transaction: droppedClaim.body.transaction,
      });
      expect(await usdcOf(w.line.payTo)).toBe(1n + 750_000n);
      expect(await usdcOf(w.buyer.address)).toBe(5_000_000n - 750_000n);
      const again = await w.facilitator.post("/settle", claim);
      expect(again.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
    },
  );
});

describe("upto claim retried after the payment's expiry", () => {
  it(
    "the claim that landed is still reported to the seller; a channel without a signed claim gets no new " + "one",
    async () => {
      const faults = await faultScenario();
      const w = await world("upto-claim-late-retry", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
      });
      const expiresAt = Math.floor(Date.now() / 1000) + 8;
      const claimed = await uptoDeposit(w.buyer, w.line, { expiresAt });
      const unclaimed = await uptoDeposit(w.buyer, w.line, { expiresAt });
      for (const deposit of [claimed, unclaimed]) {
        const opened = await w.facilitator.post("/settle", uptoBody(w.line, { ...deposit, type: "deposit" }));
        expect(opened.body, JSON.stringify(opened.body)).toMatchObject({ success: true });
      }

      // The claim lands but its answer is lost: the seller heard only "pending".
      const claim = await uptoClaimBody(w.line, claimed, 750_000n, w.authorizer);
      await faults.setFaults({ dropSendAnswer: true });
      const dropped = await w.facilitator.post("/settle", claim, { "X-Correlation-ID": "late-retry" });
      expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
      await faults.setFaults({});
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt * 1000 - Date.now()) + 1_000));

      // Past the expiry: the seller's retry of the claim that landed hears its success, the transaction that landed.
      const retry = await w.facilitator.post("/settle", claim, { "X-Correlation-ID": "late-retry" });
      expect(retry.body, JSON.stringify(retry.body)).toMatchObject({
        success: true,
        transaction: dropped.body.transaction,
      });
      expect(await usdcOf(w.line.payTo)).toBe(1n + 750_000n);
      // A claim never signed before the expiry is not signed after it.
      const before = await lamportsOf(w.facilitator.feePayer);
      const tooLate = await w.facilitator.post("/settle", await uptoClaimBody(w.line, unclaimed, 20n, w.authorizer));
      expect(tooLate.body).toMatchObject({
        success: false,
        errorReason: "invalid_upto_svm_payload_expired",
        transaction: "",
      });
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
    },
  );
});

describe("upto claim whose blockhash expired before the cluster saw it", () => {
  /** One status read of `signature` on the local chain (null: the cluster never saw it). */
  async function statusOf(signature: string): Promise<unknown> {
    const { value } = await chainRpc<{ value: unknown[] }>("getSignatureStatuses", [
      [signature],
      { searchTransactionHistory: true },
    ]);
    return value[0] ?? null;
  }

  // A blockhash lives 150 blocks: the dropped claim's expires when the chain's slots move past that, which takes ~60 s
  // of real time (a slot every 400 ms) or one localnet_warpSlots. The warp runs on a chain of this test's own
  // (test/global-setup.ts): on the shared chain it would expire other files' transactions in flight.
  let restoreChain: () => void;
  beforeAll(() => {
    restoreChain = useChain(inject("slotWarpLocalnetUrl"));
  });
  afterAll(() => restoreChain());

  it(
    "a retry signs a fresh claim once (the stored one can never land); concurrent retries move the money once, " +
      "later ones are duplicates",
    async () => {
      const faults = faultScenario(inject("slotWarpRpcFaultProxyUrl"));
      const facilitator = await isolatedFacilitator("upto-claim-expired", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
      });
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const line = await uptoLine({
        feePayer: facilitator.feePayer,
        authorizer: authorizer.address,
        maxTimeoutSeconds: 600,
      });
      const deposit = await uptoDeposit(buyer, line);
      const opened = await facilitator.post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(opened.body, JSON.stringify(opened.body)).toMatchObject({ success: true });

      // The claim is signed, stored with the channel and handed to an RPC that drops it: the seller hears "pending".
      const claim = await uptoClaimBody(line, deposit, 750_000n, authorizer);
      await faults.setFaults({ swallowSend: true });
      const dropped = await facilitator.post("/settle", claim);
      expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
      expect(dropped.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
      const deadClaim = dropped.body.transaction as string;
      expect(deadClaim).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      await faults.setFaults({});

      // The dropped claim's blockhash is at least as old as this one: once this one is invalid, so is the claim's.
      const after = await latestBlockhash();
      await chainRpc("localnet_warpSlots", [200]);
      expect((await chainRpc<{ value: boolean }>("isBlockhashValid", [after.blockhash])).value).toBe(false);
      expect(await statusOf(deadClaim)).toBeNull();
      const feeBefore = await lamportsOf(facilitator.feePayer);

      // Two retries at once: one fresh claim lands and one of them hears success; the other is no second payment.
      const retries = await Promise.all([facilitator.post("/settle", claim), facilitator.post("/settle", claim)]);
      const successes = retries.filter((r) => r.body.success === true);
      expect(successes, JSON.stringify(retries.map((r) => r.body))).toHaveLength(1);
      const fresh = successes[0]!.body.transaction as string;
      expect(fresh).not.toBe(deadClaim);
      for (const retry of retries) {
        if (retry.body.success) continue;
        expect(["duplicate_settlement", "settlement_pending"], JSON.stringify(retry.body)).toContain(
          retry.body.errorReason,
        );
      }
      expect(await usdcOf(line.payTo)).toBe(1n + 750_000n);
      expect(await usdcOf(buyer.address)).toBe(5_000_000n - 750_000n);
      expect(await statusOf(deadClaim)).toBeNull();
      // The fee payer paid one claim's network fee (its signature and the Ed25519 voucher proof's, 5,000 lamports each,
      // plus at most ~1,000 of priority fee) and got the escrow token account's rent back from the claim's Distribute:
      // the dropped claim cost nothing, and no second claim was executed.
      const claimFee = 2_039_280n - ((await lamportsOf(facilitator.feePayer)) - feeBefore);
      expect(claimFee).toBeGreaterThanOrEqual(10_000n);
      expect(claimFee).toBeLessThanOrEqual(11_000n);

      // Not stuck: every later retry names the one claim that landed.
      const again = await facilitator.post("/settle", claim);
      expect(again.body, JSON.stringify(again.body)).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      expect(again.body.errorMessage).toContain(fresh);
    },
  );
});
