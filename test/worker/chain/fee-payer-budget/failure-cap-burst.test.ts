/**
 * The per-buyer cap on payments that fail on chain at the fee payer's cost
 * (SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY) holds against a burst: payments of one buyer that pass every check
 * but fail when executed, sent one right after the other's answer and all at once, cost the fee payer at most the
 * cap's number of fees. Each payment's transfer fails on chain because the buyer emptied its token account after
 * signing, and the RPC front skips preflight (the race a cluster's preflight cannot see; the local chain simulates and
 * executes in one step). A buyer whose payments succeed: one after the other it is never refused; at most the cap's
 * number of its payments are in flight at once. Real: workerd, D1, the ledger objects (the default ledger), the local
 * chain; the RPC front is the fault proxy.
 */
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { getTransferInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { chainRpc, fundedBuyer, lamportsOf, sendAs, tokenBalance } from "../../../support/workerd/chain";
import { craftBody, memo, paymentParts, transferChecked } from "../../../support/workerd/craft-payment";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { createUsdcAccount, DEVNET, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";

const CAP = 2;
const BURST = 6;

type Facilitator = Awaited<ReturnType<typeof isolatedFacilitator>>;

/** A facilitator of its own behind a fault scenario of its own (faults off until set), with a failure cap of CAP. */
async function facilitatorBehindProxy(label: string) {
  const faults = faultScenario();
  const f = await isolatedFacilitator(label, {
    SOLANA_RPC_URL: faults.rpcUrl,
    SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY: String(CAP),
  });
  return { f, faults };
}

/** A seller wallet with its USDC account: the wallet payTo. */
async function walletSeller(): Promise<Address> {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  await createUsdcAccount(seller.address, seller);
  return seller.address;
}

/** `count` payments of `buyer` to `seller`, each well formed and signed, each a transaction of its own. */
async function payments(f: Facilitator, buyer: KeyPairSigner, seller: Address, count: number) {
  const line = {
    scheme: "exact",
    network: DEVNET,
    asset: USDC,
    amount: "10000",
    payTo: seller,
    maxTimeoutSeconds: 60,
    extra: { feePayer: f.feePayer },
  };
  const parts = await paymentParts(buyer, line);
  return Promise.all(
    Array.from({ length: count }, () =>
      craftBody(
        line,
        [
          getSetComputeUnitLimitInstruction(20_000),
          getSetComputeUnitPriceInstruction(50_000n),
          transferChecked(parts),
          memo(crypto.randomUUID()),
        ],
        { signers: [buyer], feePayer: f.feePayer },
      ),
    ),
  );
}

/** The buyer empties its token account after signing: every payment it signed now fails when executed. */
async function emptyTokenAccount(buyer: KeyPairSigner, sink: Address) {
  const source = await usdcAccountOf(buyer.address);
  await sendAs(buyer, [
    getTransferInstruction({
      source,
      destination: await usdcAccountOf(sink),
      authority: buyer,
      amount: await tokenBalance(source),
    }),
  ]);
}

/** What the answers say: how many were sent and failed on chain (a signature), and how many the cap refused. */
function tally(answers: { status: number; body: Record<string, any> }[]) {
  const failedOnChain = answers.filter(
    (a) => a.body.success === false && /^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(a.body.transaction ?? ""),
  );
  const refused = answers.filter((a) => a.body.errorReason === "fee_payer_failures_per_payer_exceeded");
  return {
    failedOnChain: failedOnChain.length,
    refused: refused.length,
    reasons: answers.map((a) => a.body.errorReason),
  };
}

describe("the per-buyer failure cap and a buyer whose payments succeed", () => {
  it(`one after the other, ${3 * CAP} payments all settle: a confirmed payment frees its place at once`, async () => {
    const { f } = await facilitatorBehindProxy("failure-cap-honest");
    const buyer = await fundedBuyer(1_000_000);
    const bodies = await payments(f, buyer, await walletSeller(), 3 * CAP);
    for (const body of bodies) {
      const answer = await f.post("/settle", body);
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: true });
    }
  });

  it(`all at once, ${CAP} are in flight and settle; the others are refused unsent, to be sent again`, async () => {
    const { f } = await facilitatorBehindProxy("failure-cap-in-flight");
    const buyer = await fundedBuyer(1_000_000);
    const bodies = await payments(f, buyer, await walletSeller(), 2 * CAP);
    const answers = await Promise.all(bodies.map((body) => f.post("/settle", body)));
    const refused = answers.filter((a) => a.body.errorReason === "fee_payer_failures_per_payer_exceeded");
    expect(answers.filter((a) => a.body.success === true)).toHaveLength(CAP);
    expect(refused).toHaveLength(CAP);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.errorMessage).toMatch(/still being settled/);
    }
    // Once those resolved, the refused ones are accepted when sent again.
    for (const [i, answer] of answers.entries()) {
      if (answer.body.success === true) continue;
      const again = await f.post("/settle", bodies[i]);
      expect(again.body, JSON.stringify(again.body)).toMatchObject({ success: true });
    }
  });
});

describe("the per-buyer failure cap against a burst of payments that fail on chain", () => {
  for (const mode of ["one after the other", "all at once"] as const) {
    it(`${mode}: at most ${CAP} are sent and fail at the fee payer's cost; the rest are refused unsent`, async () => {
      const { f, faults } = await facilitatorBehindProxy(`failure-burst-${mode.split(" ")[0]}`);
      const seller = await walletSeller();
      const buyer = await fundedBuyer(1_000_000);
      const bodies = await payments(f, buyer, seller, BURST);
      await emptyTokenAccount(buyer, seller);
      await faults.setFaults({ skipPreflight: true });
      const feePayerBefore = await lamportsOf(f.feePayer);

      const answers: { status: number; body: Record<string, any> }[] = [];
      if (mode === "all at once") answers.push(...(await Promise.all(bodies.map((body) => f.post("/settle", body)))));
      else for (const body of bodies) answers.push(await f.post("/settle", body));

      const { failedOnChain, refused, reasons } = tally(answers);
      const paid = feePayerBefore - (await lamportsOf(f.feePayer));
      expect(failedOnChain, JSON.stringify(reasons)).toBeLessThanOrEqual(CAP);
      expect(failedOnChain + refused, JSON.stringify(reasons)).toBe(BURST);
      // Each failed payment cost its network fee: two signatures (the fee payer's, the buyer's) and 1,000 of priority.
      expect(paid).toBe(BigInt(failedOnChain) * 11_000n);
      expect(paid).toBeLessThanOrEqual(BigInt(CAP) * 11_000n);
    });
  }
});
