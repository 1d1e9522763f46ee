import { AccountRole, type Address, address, type Instruction, type KeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { LIGHTHOUSE_PROGRAM_ID } from "../../../../localnet/programs/index";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { fundedBuyer, tokenBalance } from "../../../support/workerd/chain";
import {
  craftBody,
  FEE_PAYER,
  memo,
  type PaymentParts,
  paymentParts,
  transferChecked,
} from "../../../support/workerd/craft-payment";
import { enrichedLine, USDC } from "../../../support/workerd/payment-fixtures";
import { call } from "../../../support/workerd/worker-http";

/**
 * Issue 23 item 7: the transaction shapes the x402 SVM exact spec allows wallets to produce, sent to the real
 * /verify and /settle of the Worker against the local chain. Lighthouse guards run for real: the local chain loads
 * a stand-in program at Lighthouse's id (localnet/programs/lighthouse), so a guard that does not hold fails the
 * payment on chain, and one that holds lets it land.
 */

const LIGHTHOUSE = address(LIGHTHOUSE_PROGRAM_ID);
const ASSERT_TOKEN_AMOUNT = 0;
const ASSERT_LAMPORTS = 1;
const OP = { eq: 0, gte: 4 } as const;

/** A Lighthouse guard in the stand-in's encoding: u8 assertion ‖ u8 operator ‖ u64 value, account 0 asserted on. */
function guard(account: Address, assertion: number, operator: number, value: bigint): Instruction {
  const data = new Uint8Array(10);
  data[0] = assertion;
  data[1] = operator;
  new DataView(data.buffer).setBigUint64(2, value, true);
  return { programAddress: LIGHTHOUSE, accounts: [{ address: account, role: AccountRole.READONLY }], data };
}

const limit = () => getSetComputeUnitLimitInstruction(40_000);
const price = () => getSetComputeUnitPriceInstruction(1n);

let buyer: KeyPairSigner;
let line: Record<string, any>;
let parts: PaymentParts;

beforeAll(async () => {
  buyer = await fundedBuyer(50_000_000);
  line = await enrichedLine(USDC, "1000000");
  parts = await paymentParts(buyer, line);
});

async function expectVerifyInvalid(body: Record<string, any>, reason: string | RegExp) {
  const response = await call("/verify", { method: "POST", json: body });
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.invalidReason).toMatch(reason);
}

/** Verifies, settles, and checks the vault received exactly the amount. */
async function expectSettles(body: Record<string, any>) {
  const verified = await call("/verify", { method: "POST", json: body });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  const before = await tokenBalance(parts.vaultAta).catch(() => 0n);
  const settled = await call("/settle", { method: "POST", json: body });
  expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  expect(settled.body).toMatchObject({ success: true, payer: buyer.address });
  expect(await tokenBalance(parts.vaultAta)).toBe(before + parts.amount);
}

describe("exact: Lighthouse guard instructions (wallet protection, x402 PR #3318)", () => {
  it("guards before and after the transfer pass verify and the payment settles on chain with them", async () => {
    const balance = await tokenBalance(parts.sourceAta);
    const body = await craftBody(
      line,
      [
        limit(),
        price(),
        guard(parts.sourceAta, ASSERT_TOKEN_AMOUNT, OP.eq, balance), // Phantom's position: before the transfer
        transferChecked(parts),
        guard(parts.sourceAta, ASSERT_TOKEN_AMOUNT, OP.eq, balance - parts.amount), // after: exactly the price left
        guard(buyer.address, ASSERT_LAMPORTS, OP.gte, 1n),
        memo(crypto.randomUUID()),
      ],
      { signers: [buyer] },
    );
    await expectSettles(body);
  });

  it(
    "a guard that does not hold fails the payment: verify refuses it after simulation and no money " + "moves",
    async () => {
      const balance = await tokenBalance(parts.sourceAta);
      const body = await craftBody(
        line,
        [limit(), price(), transferChecked(parts), guard(parts.sourceAta, ASSERT_TOKEN_AMOUNT, OP.eq, balance)],
        { signers: [buyer] },
      );
      await expectVerifyInvalid(body, /simulation|transaction_failed|custom|invalid/);
      const settled = await call("/settle", { method: "POST", json: body });
      expect(settled.body.success).toBe(false);
      expect(await tokenBalance(parts.sourceAta)).toBe(balance);
    },
  );

  it("a guard naming the facilitator's fee payer is refused (the fee payer is in no instruction)", async () => {
    const body = await craftBody(
      line,
      [limit(), price(), guard(FEE_PAYER, ASSERT_LAMPORTS, OP.gte, 1n), transferChecked(parts)],
      { signers: [buyer] },
    );
    await expectVerifyInvalid(body, "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds");
  });

  it("more than four guards are refused", async () => {
    const guards = Array.from({ length: 5 }, () => guard(buyer.address, ASSERT_LAMPORTS, OP.gte, 1n));
    const body = await craftBody(line, [limit(), price(), ...guards, transferChecked(parts)], { signers: [buyer] });
    await expectVerifyInvalid(body, "invalid_exact_svm_payload_lighthouse_count");
  });

  it("guards do not lift the compute cap", async () => {
    const body = await craftBody(
      line,
      [
        getSetComputeUnitLimitInstruction(10_000_000),
        price(),
        guard(buyer.address, ASSERT_LAMPORTS, OP.gte, 1n),
        transferChecked(parts),
      ],
      { signers: [buyer] },
    );
    await expectVerifyInvalid(
      body,
      "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high",
    );
  });
});

describe("exact: the Memo variants of the spec", () => {
  const withMemo = () => ({ ...line, extra: { ...line.extra, memo: "order-4711" } });

  it("extra.memo set and carried exactly: valid, and it settles", async () => {
    const memoLine = withMemo();
    await expectSettles(
      await craftBody(memoLine, [limit(), price(), transferChecked(parts), memo("order-4711")], { signers: [buyer] }),
    );
  });

  it("extra.memo set but the Memo says something else → invalid_exact_svm_payload_memo_mismatch", async () => {
    await expectVerifyInvalid(
      await craftBody(withMemo(), [limit(), price(), transferChecked(parts), memo("order-4712")], { signers: [buyer] }),
      "invalid_exact_svm_payload_memo_mismatch",
    );
  });

  it("extra.memo set but no Memo instruction → invalid_exact_svm_payload_memo_count", async () => {
    await expectVerifyInvalid(
      await craftBody(withMemo(), [limit(), price(), transferChecked(parts)], { signers: [buyer] }),
      "invalid_exact_svm_payload_memo_count",
    );
  });

  it("no extra.memo and no Memo at all: valid, and it settles", async () => {
    await expectSettles(await craftBody(line, [limit(), price(), transferChecked(parts)], { signers: [buyer] }));
  });

  it("no extra.memo and the client's own nonce in a Memo: valid, and it settles", async () => {
    await expectSettles(
      await craftBody(line, [limit(), price(), transferChecked(parts), memo(crypto.randomUUID().replace(/-/g, ""))], {
        signers: [buyer],
      }),
    );
  });
});
