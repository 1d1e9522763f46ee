import { env } from "cloudflare:test";
import {
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  generateKeyPairSigner,
  type KeyPairSigner,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { TOKEN_PROGRAM_ADDRESS } from "../../../../src/chain/token-programs";
import type { Env } from "../../../../src/env";
import { loadConfig } from "../../../../src/rails/registry";
import { uptoOpenRentLamports } from "../../../../src/rails/upto/channel-rent-caps";
import { runUptoKeeper } from "../../../../src/rails/upto/keeper/run-keeper";
import { signWireTransaction } from "../../../support/sign-transaction";
import { chainRpc, fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { uptoBody, uptoDeposit, uptoLine, uptoSeller } from "../../../support/workerd/upto-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * Issue 32's first two attacks, replayed end to end against the real local chain and real D1 with the facilitator's
 * own /build-upto-deposit-tx (the official client's open, byte for byte) and the default caps:
 * - rent float: a wallet with a few raw units of USDC and no SOL opens channels to random payTo addresses;
 * - outage: 25 such opens took a 0.12 SOL fee payer to 0.002 SOL, then a real buyer's deposit was refused (blamed on
 *   the buyer) and the upto keeper paused itself.
 * Here the fee payer holds 0.2 SOL: without the per-wallet caps the attacker would fill the share of its balance and
 * the real buyer's deposit would be refused; without any cap the fee payer would sink below its minimum and the
 * keeper pause.
 */

const FEE_PAYER_LAMPORTS = 200_000_000;
const RENT = uptoOpenRentLamports(TOKEN_PROGRAM_ADDRESS);
const RENT_PER_PAYER_CAP = 50_000_000n; // SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS' default
const MIN_LAMPORTS = 100_000_000n; // SVC_FEE_PAYER_MIN_LAMPORTS' default

type Facilitator = Awaited<ReturnType<typeof isolatedFacilitator>>;

/** A deposit the way a buyer without an SDK makes it: the facilitator builds the open, the buyer signs it. */
async function builtDeposit(facilitator: Facilitator, buyer: KeyPairSigner, accepted: Record<string, unknown>) {
  const built = await facilitator.post("/build-upto-deposit-tx", { payer: buyer.address, accepted });
  if (built.status !== 200) return { refused: built };
  const body = built.body.verifyBodyTemplate;
  body.paymentPayload.payload.openTransaction = await signWireTransaction(built.body.transaction, [buyer]);
  body.paymentPayload.payload.type = "deposit";
  return { body, channelId: built.body.channelId as Address };
}

/** A wallet with tokens and not one lamport of SOL. */
async function walletWithoutSol(usdcRaw: number): Promise<KeyPairSigner> {
  const wallet = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await chainRpc("requestTokenAirdrop", [wallet.address, usdcRaw]);
  return wallet;
}

describe("issue 32's attacks replayed: the rent float and the outage", () => {
  it("the attacker's opens stop at its caps, the fee payer's rent out stays under them, a real buyer's deposit " +
    "settles and the upto keeper runs", async () => {
    const facilitator = await isolatedFacilitator("upto-exposure-attack", {}, FEE_PAYER_LAMPORTS);
    const attacker = await walletWithoutSol(100);
    const voucherKey = await generateKeyPairSigner(); // the attacker's own: it could cancel at once with a zero claim
    const lineTo = async (payTo: Address, amount: string) =>
      uptoLine({ feePayer: facilitator.feePayer, authorizer: voucherKey.address, payTo, amount });

    // 1. The 1-raw-unit deposits: the builder will not build one, and a hand-made one is refused unsigned.
    const oneUnit = await builtDeposit(
      facilitator,
      attacker,
      await lineTo((await generateKeyPairSigner()).address, "1"),
    );
    expect(oneUnit.refused?.status).toBe(400);
    expect(oneUnit.refused?.body.error).toMatch(/below this facilitator's minimum/);
    const handMadeLine = await lineTo((await generateKeyPairSigner()).address, "1");
    const handMade = await facilitator.post(
      "/settle",
      uptoBody(handMadeLine, { ...(await uptoDeposit(attacker, handMadeLine)), type: "deposit" }),
    );
    expect(handMade.body).toMatchObject({
      success: false,
      errorReason: "invalid_upto_svm_payload_amount_below_minimum",
    });
    expect(await lamportsOf(facilitator.feePayer)).toBe(BigInt(FEE_PAYER_LAMPORTS));

    // 2. At the minimum ceiling instead (0.01 USDC each), 25 opens to random payTo addresses, as in the outage (each
    // with its token account: a payTo without one is refused before any cap, deposit-claim-cancel.test.ts).
    await chainRpc("requestTokenAirdrop", [attacker.address, 250_000]);
    const answers = [];
    for (let i = 0; i < 25; i++) {
      const d = await builtDeposit(facilitator, attacker, await lineTo(await uptoSeller(), "10000"));
      expect(d.body, JSON.stringify(d.refused?.body)).toBeDefined();
      answers.push(await facilitator.post("/settle", d.body));
    }
    const opened = answers.filter((a) => a.body.success === true);
    // SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER
    expect(opened, JSON.stringify(answers.map((a) => a.body.errorReason ?? "ok"))).toHaveLength(10);
    for (const refused of answers.filter((a) => a.body.success !== true)) {
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ errorReason: "upto_open_channels_per_payer_exceeded", transaction: "" });
    }

    // The fee payer's rent out, as /health books it and as the chain shows it: under the per-wallet cap.
    const health = (await callWithEnv(facilitator.env, "/health")).body;
    const rentOut = BigInt(health.feePayerExposure.rentOutLamports.byRail.upto);
    expect(rentOut).toBe(10n * RENT);
    expect(rentOut).toBeLessThanOrEqual(RENT_PER_PAYER_CAP);
    const afterAttack = await lamportsOf(facilitator.feePayer);
    expect(BigInt(FEE_PAYER_LAMPORTS) - afterAttack).toBeLessThanOrEqual(10n * (RENT + 11_000n));
    expect(health.feePayerBalance).toMatchObject({ state: "ok", belowFloor: null });

    // 3. A real buyer's 1 USDC deposit still settles (the issue: refused as the buyer's insufficient_funds).
    const buyer = await fundedBuyer(5_000_000);
    const real = await builtDeposit(facilitator, buyer, await lineTo(await uptoSeller(), "1000000"));
    const settled = await facilitator.post("/settle", real.body);
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true, payer: buyer.address });
    expect(await tokenBalance(await usdcAccountOf(buyer.address))).toBe(4_000_000n);
    expect(await tokenBalance(await usdcAccountOf(attacker.address))).toBe(250_100n - 10n * 10_000n);

    // 4. The upto keeper runs (the issue: paused itself, fee_payer_below_minimum, so no rent ever came back).
    expect(await lamportsOf(facilitator.feePayer)).toBeGreaterThanOrEqual(MIN_LAMPORTS);
    const report = await runUptoKeeper(
      await loadConfig({ ...(env as unknown as Env), ...facilitator.env } as Env),
      env.DB,
    );
    expect(report.paused, JSON.stringify(report)).toBeUndefined();
  }, 120_000);
});
