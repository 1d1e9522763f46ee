import { env } from "cloudflare:test";
import {
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
  type Transaction,
} from "@solana/kit";
import { getCloseAccountInstruction, getTransferInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import { KEEPER_MAX_ATTEMPTS, KEEPER_RETRY_BASE_MS } from "../../../../src/jobs/keeper/backoff";
import { runRetention } from "../../../../src/jobs/retention/run-retention";
import { loadConfig, RAILS } from "../../../../src/rails/registry";
import { PAYMENT_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import { getFundPaymentInstruction } from "../../../../src/rails/sla-escrow/program/instructions";
import { randomPaymentUid } from "../../../../src/rails/sla-escrow/program/payment-uid";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findPaymentPda,
} from "../../../../src/rails/sla-escrow/program/pda";
import { chainRpc, fundedBuyer, lamportsOf, sendSigned, tokenBalance } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { ESCROW_PROGRAM, hex32, ORACLE, paymentAccount, TTL } from "../../../support/workerd/escrow-fixtures";
import {
  deliverAndApprove,
  itemsFor,
  type KeeperReport,
  OPERATOR_AUTH,
  ORACLE_TIP,
  PAYMENT_AMOUNT,
  RELEASE_FEE,
} from "../../../support/workerd/escrow-keeper";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { DEVNET, NATIVE_SOL, RESOURCE, USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";

/**
 * Issue 20 §2: the escrow keeper cannot be stalled or poisoned, and the fee payer pays network fees only for payouts
 * of payments it settled. Everything runs for real: the Worker in workerd with real D1, the local chain with the
 * stand-in SLA-Escrow program, and a facilitator with a fee payer of its own, so that its balance moves only by what
 * these tests make it do. Where a test needs the network to misbehave (a dropped transaction, a state change between
 * preflight and execution), a proxy in front of the real chain does it (test/support/node/rpc-fault-proxy.ts).
 */

/** A facilitator with its own fee payer, and the escrow calls of these tests through its HTTP surface. */
async function escrowDesk(label: string, extraEnv: Record<string, unknown> = {}) {
  const f = await isolatedFacilitator(label, extraEnv);
  const line = async (asset: Address, amount: bigint, seller: Address) => {
    const enriched = await f.post("/payment-required/enrich", {
      x402Version: 2,
      resource: RESOURCE,
      accepts: [
        {
          scheme: "v2:solana:sla-escrow",
          network: DEVNET,
          asset,
          amount: amount.toString(),
          payTo: seller,
          maxTimeoutSeconds: TTL,
        },
      ],
    });
    expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
    return enriched.body.accepts[0] as Record<string, any>;
  };
  const build = async (payer: Address, accepted: Record<string, any>, more: Record<string, unknown> = {}) => {
    const built = await f.post("/build-sla-escrow-payment-tx", {
      payer,
      accepted,
      resource: RESOURCE,
      slaHash: hex32(),
      oracleAuthority: ORACLE,
      ...more,
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    return built.body as {
      transaction: string;
      verifyBodyTemplate: Record<string, any>;
      paymentPda: Address;
      paymentUidHex: string;
    };
  };
  /** Built by the facilitator and signed by `buyer`; `rewrite` may change the unsigned transaction first. */
  const signed = async (
    buyer: KeyPairSigner,
    accepted: Record<string, any>,
    more: Record<string, unknown> = {},
    rewrite?: (tx: Transaction) => Transaction,
  ) => {
    const built = await build(buyer.address, accepted, more);
    const body = built.verifyBodyTemplate;
    const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction));
    body.paymentPayload.payload.transaction = getBase64EncodedWireTransaction(
      await partiallySignTransaction([buyer.keyPair], rewrite ? rewrite(unsigned) : unsigned),
    );
    return { body, built };
  };
  const keeper = async (body: Record<string, unknown> = {}) => {
    const response = await f.post("/escrow-keeper", body, OPERATOR_AUTH);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as KeeperReport;
  };
  /** A buyer-paid USDC payment settled here, delivered and approved: due for release. */
  const approvedPayment = async (sellerHasTokenAccount = true) => {
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const seller = await fundedBuyer(sellerHasTokenAccount ? 1 : 0, 100_000_000);
    const { body, built } = await signed(buyer, await line(USDC, PAYMENT_AMOUNT, seller.address));
    const settle = await f.post("/settle", body);
    expect(settle.body, JSON.stringify(settle.body)).toMatchObject({ success: true });
    await deliverAndApprove({ buyer, seller, uidHex: built.paymentUidHex }, f.post);
    return { buyer, seller, payment: built.paymentPda };
  };
  return { ...f, line, build, signed, keeper, approvedPayment };
}

const unfundedKey = () => createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));

/** The network fee the chain charged for each transaction (what its fee payer paid). */
async function feesOf(signatures: readonly string[]): Promise<bigint> {
  let total = 0n;
  for (const signature of signatures) {
    const tx = await chainRpc<{ meta: { fee: number } } | null>("getTransaction", [
      signature,
      { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
    ]);
    expect(tx, `transaction ${signature}`).not.toBeNull();
    total += BigInt(tx!.meta.fee);
  }
  return total;
}

async function watchRow(payment: string) {
  return env.DB.prepare("SELECT * FROM escrow_watch WHERE payment_pda = ?").bind(payment).first<Record<string, any>>();
}

/** Moves a row's next check into the past: what the passing of its backoff would do. */
async function makeDue(payment: string) {
  await env.DB.prepare("UPDATE escrow_watch SET next_check_at_ms = 0 WHERE payment_pda = ?").bind(payment).run();
}

describe("escrow keeper: stalling", () => {
  it(
    "failing fundings signed by unfunded keys leave nothing to watch: an approved payment is released in the next " +
      "run, the fee payer paying only its fee",
    async () => {
      const d = await escrowDesk("keeper-stall");
      const feePayerBefore = await lamportsOf(d.feePayer);

      // Fundings that pass /settle's checks but can never land (their signers own nothing).
      const ghosts: string[] = [];
      const seller = await fundedBuyer(1, 100_000_000);
      const line = await d.line(USDC, PAYMENT_AMOUNT, seller.address);
      for (let i = 0; i < 12; i++) {
        const { body, built } = await d.signed(await unfundedKey(), line);
        const settle = await d.post("/settle", body);
        expect(settle.body.success, JSON.stringify(settle.body)).toBe(false);
        ghosts.push(built.paymentPda);
      }
      for (const ghost of ghosts)
        expect(await watchRow(ghost), "a funding the cluster refused is never watched").toBeNull();

      const real = await d.approvedPayment();
      const sellerAta = await usdcAccountOf(real.seller.address);
      const before = await tokenBalance(sellerAta);
      // A run smaller than the flood: on the old code the ghosts (watched first) took every slot.
      const run = await d.keeper({ limit: 10 });
      const released = itemsFor(run, real.payment);
      expect(released, JSON.stringify(run.items)).toEqual([
        expect.objectContaining({ action: "release", outcome: "landed", detail: "released" }),
      ]);
      expect(await tokenBalance(sellerAta)).toBe(before + PAYMENT_AMOUNT - ORACLE_TIP - RELEASE_FEE);
      expect(await paymentAccount(real.payment)).toMatchObject({ state: PAYMENT_STATE.RELEASED });

      // The fee payer's spend over the whole attack: the network fee of the one payout, nothing else.
      const payouts = run.items.filter((i) => i.signature !== null).map((i) => i.signature!);
      expect(payouts).toHaveLength(1);
      expect(feePayerBefore - (await lamportsOf(d.feePayer))).toBe(await feesOf(payouts));
    },
  );

  it(
    "a funding the cluster accepted but dropped is waited for while its blockhash lives, and dropped once it cannot " +
      "land",
    async () => {
      const faults = await faultScenario();
      const d = await escrowDesk("keeper-dropped-funding", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
      });
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const line = await d.line(USDC, PAYMENT_AMOUNT, (await fundedBuyer(1, 100_000_000)).address);
      await faults.setFaults({ swallowSend: true });

      // A blockhash that is still valid: the funding may yet land, so the keeper waits.
      const live = await d.signed(buyer, line);
      const livePending = await d.post("/settle", live.body);
      expect(livePending.status, JSON.stringify(livePending.body)).toBe(202);
      // A blockhash the cluster never issued (as good as expired): this funding can never land.
      const neverIssued = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32)));
      const dead = await d.signed(buyer, line, {}, (tx) => withBlockhash(tx, neverIssued));
      const deadPending = await d.post("/settle", dead.body);
      expect(deadPending.status, JSON.stringify(deadPending.body)).toBe(202);
      expect(await watchRow(dead.built.paymentPda)).toMatchObject({ state: "open" });

      await faults.setFaults({});
      const run = await d.keeper();
      expect(itemsFor(run, live.built.paymentPda)).toEqual([
        expect.objectContaining({
          decision: "wait",
          signature: null,
          outcome: "waiting",
          detail: expect.stringMatching(/not confirmed yet/),
        }),
      ]);
      expect(itemsFor(run, dead.built.paymentPda)).toEqual([
        expect.objectContaining({
          decision: "dropped",
          signature: null,
          outcome: "dropped",
          detail: expect.stringMatching(/never landed and its blockhash expired/),
        }),
      ]);
      expect(await watchRow(dead.built.paymentPda)).toMatchObject({
        state: "dropped",
        last_action: "none",
        last_outcome: "dropped",
        last_detail: expect.stringMatching(/never landed and its blockhash expired/),
      });
      expect(await watchRow(live.built.paymentPda)).toMatchObject({
        state: "open",
        last_action: "none",
        last_outcome: "waiting",
        last_detail: expect.stringMatching(/not confirmed yet/),
      });
    },
  );

  it(
    "a payment that cannot progress backs off with a doubling delay, never takes a due payment's slot, and is given " +
      "up at the cap",
    async () => {
      const d = await escrowDesk("keeper-backoff");
      const blocked = await d.approvedPayment(false); // its seller has no USDC account: the release cannot be made
      const first = itemsFor(await d.keeper(), blocked.payment);
      expect(first).toEqual([
        expect.objectContaining({
          signature: null,
          outcome: "skipped",
          detail: expect.stringMatching(/recipient token account .* does not exist yet/),
        }),
      ]);
      const afterFirst = await watchRow(blocked.payment);
      expect(afterFirst).toMatchObject({ state: "open", failures: 1, last_action: "release", last_outcome: "skipped" });
      expect(afterFirst!.next_check_at_ms - Date.now()).toBeGreaterThan(KEEPER_RETRY_BASE_MS - 60_000);

      // Due again (and due first by time), it still waits behind a payment that never failed.
      const real = await d.approvedPayment();
      await makeDue(blocked.payment);
      const run = await d.keeper({ limit: 1 });
      expect(run.items.map((i) => i.paymentPda)).toEqual([real.payment]);
      expect(itemsFor(run, real.payment)).toEqual([expect.objectContaining({ outcome: "landed", detail: "released" })]);

      for (let attempt = 2; attempt <= KEEPER_MAX_ATTEMPTS; attempt++) {
        await makeDue(blocked.payment);
        const startedAt = Date.now();
        const items = itemsFor(await d.keeper(), blocked.payment);
        const row = await watchRow(blocked.payment);
        expect(row!.failures).toBe(attempt);
        if (attempt < KEEPER_MAX_ATTEMPTS) {
          expect(row!.state).toBe("open");
          expect(row!.next_check_at_ms - startedAt).toBeGreaterThanOrEqual(
            Math.min(KEEPER_RETRY_BASE_MS * 2 ** (attempt - 1), 86_400_000) - 1_000,
          );
        } else {
          expect(row).toMatchObject({
            state: "stuck",
            last_action: "release",
            last_outcome: "skipped",
            last_detail: items[0]!.detail,
          });
          expect(items).toEqual([
            expect.objectContaining({
              outcome: "skipped",
              detail: expect.stringMatching(
                new RegExp(`^gave up after ${KEEPER_MAX_ATTEMPTS} attempts: recipient token account`),
              ),
            }),
          ]);
        }
      }
      await makeDue(blocked.payment);
      expect(itemsFor(await d.keeper(), blocked.payment), "a stuck row is never claimed again").toEqual([]);
      expect((await paymentAccount(blocked.payment))?.state).toBe(PAYMENT_STATE.FUNDED);
    },
  );

  it("finished rows are purged after SVC_ESCROW_WATCH_RETENTION_DAYS; open ones stay", async () => {
    const day = 86_400_000;
    const now = Date.now();
    const config = await loadConfig(env as unknown as Env);
    expect(config.limits.keeperRowRetentionDays).toBe(30);
    const rows: [string, string, number][] = [
      ["closed-old", "closed", now - 31 * day],
      ["dropped-old", "dropped", now - 31 * day],
      ["stuck-old", "stuck", now - 31 * day],
      ["closed-recent", "closed", now - 29 * day],
      ["open-old", "open", now - 31 * day],
    ];
    const named = await Promise.all(
      rows.map(async ([name, state, at]) => ({ name, pda: (await unfundedKey()).address, state, at })),
    );
    for (const r of named) {
      await env.DB.prepare(
        `INSERT INTO escrow_watch (payment_pda, funding_signature, state, next_check_at_ms, created_at_ms, ` +
          `updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?4, ?4)`,
      )
        .bind(r.pda, `sig-${r.pda}`, r.state, r.at)
        .run();
    }
    const outcome = await runRetention(RAILS, config, env as unknown as Env, now);
    expect(outcome.escrowWatchRowsDeleted).toBeGreaterThanOrEqual(3);
    const left = new Set<string>();
    for (const r of named) if (await watchRow(r.pda)) left.add(r.name);
    expect([...left].sort()).toEqual(["closed-recent", "open-old"]);
    for (const r of named) await env.DB.prepare("DELETE FROM escrow_watch WHERE payment_pda = ?").bind(r.pda).run();
  });
});

describe("escrow keeper: poisoning", () => {
  it(
    "a failing funding that reuses a real payment's uid in another mint cannot change what the keeper does: the " +
      "real payment is released, the fee payer pays one fee",
    async () => {
      const d = await escrowDesk("keeper-poison");
      const feePayerBefore = await lamportsOf(d.feePayer);
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const seller = await fundedBuyer(1, 100_000_000);
      const real = await d.signed(buyer, await d.line(USDC, PAYMENT_AMOUNT, seller.address));

      // Same uid, same bank → same Payment address, but in native SOL (another mint with an escrow), by a key that owns
      // nothing.
      const poison = await d.signed(await unfundedKey(), await d.line(NATIVE_SOL, 50_000_000n, seller.address), {
        paymentUidHex: real.built.paymentUidHex,
      });
      expect(poison.built.paymentPda).toBe(real.built.paymentPda);
      expect((await d.post("/settle", poison.body)).body.success).toBe(false);
      expect(await watchRow(real.built.paymentPda)).toBeNull();

      expect((await d.post("/settle", real.body)).body).toMatchObject({ success: true });
      await deliverAndApprove({ buyer, seller, uidHex: real.built.paymentUidHex }, d.post);
      const sellerAta = await usdcAccountOf(seller.address);
      const before = await tokenBalance(sellerAta);
      const run = await d.keeper();
      expect(itemsFor(run, real.built.paymentPda), JSON.stringify(run.items)).toEqual([
        expect.objectContaining({ action: "release", outcome: "landed", detail: "released" }),
      ]);
      expect(await tokenBalance(sellerAta)).toBe(before + PAYMENT_AMOUNT - ORACLE_TIP - RELEASE_FEE);
      expect(await paymentAccount(real.built.paymentPda)).toMatchObject({ state: PAYMENT_STATE.RELEASED, mint: USDC });

      const payouts = run.items.filter((i) => i.signature !== null).map((i) => i.signature!);
      expect(payouts).toHaveLength(1);
      expect(feePayerBefore - (await lamportsOf(d.feePayer))).toBe(await feesOf(payouts));
    },
  );

  it(
    "a funding settle answered pending is confirmed in the ledger by the keeper from the chain, then paid out; the " +
      "next /settle reports it once",
    async () => {
      const faults = await faultScenario();
      const d = await escrowDesk("keeper-ledger-catch-up", {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
      });
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const seller = await fundedBuyer(1, 100_000_000);
      const { body, built } = await d.signed(buyer, await d.line(USDC, PAYMENT_AMOUNT, seller.address));
      await faults.setFaults({ failMethods: ["getSignatureStatuses"] });
      const pending = await d.post("/settle", body);
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      await faults.setFaults({});
      const ledgerState = () =>
        env.DB.prepare("SELECT state FROM settlements WHERE signature = ?")
          .bind(pending.body.transaction)
          .first<{ state: string }>();
      expect(await ledgerState()).toMatchObject({ state: "pending" });

      await deliverAndApprove({ buyer, seller, uidHex: built.paymentUidHex }, d.post);
      const run = await d.keeper();
      expect(itemsFor(run, built.paymentPda)).toEqual([
        expect.objectContaining({ outcome: "landed", detail: "released" }),
      ]);
      expect(await ledgerState()).toMatchObject({ state: "confirmed" });
      expect((await d.post("/settle", body)).body).toMatchObject({
        success: true,
        transaction: pending.body.transaction,
      });
    },
  );

  it("pays nothing for a payment its ledger does not show funded here, whatever the watch table says", async () => {
    const d = await escrowDesk("keeper-not-ours");
    // A payment its buyer funded straight on chain (not through this facilitator), delivered and approved …
    const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
    const seller = await fundedBuyer(1, 100_000_000);
    const { payment, signature } = await fundDirectly(buyer, seller.address);
    const uidHex = (await paymentAccount(payment))!.paymentUid;
    await deliverAndApprove(
      {
        buyer,
        seller,
        uidHex: Array.from(uidHex, (b) => b.toString(16).padStart(2, "0")).join(""),
      },
      d.post,
    );
    // … and a watch row pointing at it that no settle of ours wrote.
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO escrow_watch (payment_pda, funding_signature, funding_blockhash, state, next_check_at_ms, ` +
        `created_at_ms, updated_at_ms) VALUES (?1, ?2, NULL, 'open', ?3, ?3, ?3)`,
    )
      .bind(payment, signature, now)
      .run();

    const feePayerBefore = await lamportsOf(d.feePayer);
    const run = await d.keeper();
    expect(itemsFor(run, payment)).toEqual([
      expect.objectContaining({
        decision: "dropped",
        signature: null,
        outcome: "dropped",
        detail: expect.stringMatching(/not an sla-escrow settlement in this facilitator's ledger/),
      }),
    ]);
    expect(await lamportsOf(d.feePayer)).toBe(feePayerBefore);
    expect((await paymentAccount(payment))?.state).toBe(PAYMENT_STATE.FUNDED);
  });
});

describe(
  "sponsored fundings: a buyer who empties its account after verify cannot make the fee payer pay again and " + "again",
  () => {
    /**
     * A facilitator that sponsors fundings and lets a payer fail one, its RPC behind a fault scenario of its own; a
     * buyer who signed two sponsored fundings and then emptied its token account.
     */
    async function twoSponsoredFundingsThenEmpty(label: string, extraEnv: Record<string, unknown> = {}) {
      const faults = faultScenario();
      const d = await escrowDesk(label, {
        SOLANA_RPC_URL: faults.rpcUrl,
        SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: "yes",
        SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER: "1",
        ...extraEnv,
      });
      const buyer = await fundedBuyer(5_000_000, 100_000_000);
      const sink = await fundedBuyer(1, 100_000_000);
      const line = await d.line(USDC, PAYMENT_AMOUNT, (await fundedBuyer(1, 100_000_000)).address);
      const first = await d.signed(buyer, line, { facilitatorPaysTransactionFees: true });
      const second = await d.signed(buyer, line, { facilitatorPaysTransactionFees: true });
      await drainUsdc(buyer, sink.address);
      return { faults, d, buyer, first, second };
    }

    it(
      "after SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER failed sponsored fundings, the payer's next one is refused " +
        "before anything is signed",
      async () => {
        const { faults, d, first, second } = await twoSponsoredFundingsThenEmpty("sponsored-cap");
        // The cluster executes the funding anyway (no preflight in between).
        await faults.setFaults({ skipPreflight: true });
        const feePayerBefore = await lamportsOf(d.feePayer);
        const failed = await d.post("/settle", first.body);
        expect(failed.body, JSON.stringify(failed.body)).toMatchObject({ success: false });
        expect(failed.body.transaction, "executed and failed: the fee was paid").toMatch(
          /^[1-9A-HJ-NP-Za-km-z]{64,88}$/,
        );
        const refused = await d.post("/settle", second.body);
        expect(refused.body, JSON.stringify(refused.body)).toMatchObject({
          success: false,
          errorReason: "invalid_sla_escrow_payload_sponsorship_refused",
        });
        expect(refused.body.transaction ?? "").toBe("");
        expect((await d.post("/verify", second.body)).body).toMatchObject({
          isValid: false,
          invalidReason: "invalid_sla_escrow_payload_sponsorship_refused",
        });

        expect(feePayerBefore - (await lamportsOf(d.feePayer)), "one failed funding's fee, no more").toBe(
          await feesOf([failed.body.transaction]),
        );
        await faults.setFaults({});
      },
    );

    it(
      "a failed sponsored funding that settle could only answer pending is counted by the keeper, so the cap " +
        "holds",
      async () => {
        const { faults, d, buyer, first, second } = await twoSponsoredFundingsThenEmpty("sponsored-cap-pending", {
          SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000",
        });

        // Executed and failed, but settle cannot read its status: it answers pending, and the keeper watches the
        // funding.
        await faults.setFaults({ skipPreflight: true, failMethods: ["getSignatureStatuses"] });
        const pending = await d.post("/settle", first.body);
        expect(pending.status, JSON.stringify(pending.body)).toBe(202);
        await faults.setFaults({});
        expect(await watchRow(first.built.paymentPda)).toMatchObject({ state: "open", sponsored_payer: buyer.address });

        const run = await d.keeper();
        expect(itemsFor(run, first.built.paymentPda)).toEqual([
          expect.objectContaining({
            decision: "dropped",
            signature: null,
            outcome: "dropped",
            detail: expect.stringMatching(/failed on chain/),
          }),
        ]);
        const refused = await d.post("/settle", second.body);
        expect(refused.body, JSON.stringify(refused.body)).toMatchObject({
          success: false,
          errorReason: "invalid_sla_escrow_payload_sponsorship_refused",
        });
      },
    );
  },
);

/** Replaces the unsigned transaction's recent blockhash. */
function withBlockhash(tx: Transaction, blockhash: string): Transaction {
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const messageBytes = getCompiledTransactionMessageEncoder().encode({
    ...compiled,
    lifetimeToken: blockhash,
  }) as Transaction["messageBytes"];
  return { ...tx, messageBytes };
}

async function drainUsdc(owner: KeyPairSigner, to: Address) {
  const source = await usdcAccountOf(owner.address);
  const amount = await tokenBalance(source);
  await sendSigned(owner, [
    getTransferInstruction({ source, destination: await usdcAccountOf(to), authority: owner, amount }),
  ]);
  expect(await tokenBalance(source)).toBe(0n);
}

/** A USDC FundPayment the buyer signs, pays and sends itself, without this facilitator. */
async function fundDirectly(buyer: KeyPairSigner, seller: Address) {
  const [bank] = await findBankPda(ESCROW_PROGRAM);
  const [config] = await findEscrowConfigPda(ESCROW_PROGRAM);
  const [escrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
  const uid = randomPaymentUid();
  const [payment] = await findPaymentPda(ESCROW_PROGRAM, uid.bytes, bank);
  const fund = getFundPaymentInstruction({
    programId: ESCROW_PROGRAM,
    bank,
    config,
    escrow,
    payment,
    kind: "spl",
    buyer,
    seller,
    mint: USDC,
    escrowAta: await usdcAccountOf(escrow),
    buyerAta: await usdcAccountOf(buyer.address),
    tokenProgram: TOKEN_PROGRAM,
    oracleAuthority: ORACLE,
    paymentUid: uid.bytes,
    slaHash: crypto.getRandomValues(new Uint8Array(32)),
    amount: PAYMENT_AMOUNT,
    ttlSeconds: BigInt(TTL),
  });
  const signature = await sendSigned(buyer, [fund]);
  expect(await paymentAccount(payment)).toMatchObject({ state: PAYMENT_STATE.FUNDED });
  return { payment, signature };
}

/** A token account to empty the seller's USDC account into (made ahead: closing must be quick). */
async function sinkAccount() {
  return usdcAccountOf((await fundedBuyer(1, 10_000_000)).address);
}

/** The seller empties its USDC account into `sink` and closes it, signing alone. */
async function closeUsdcAccount(owner: KeyPairSigner, sink: Address) {
  const source = await usdcAccountOf(owner.address);
  const amount = await tokenBalance(source);
  await sendSigned(owner, [
    ...(amount > 0n ? [getTransferInstruction({ source, destination: sink, authority: owner, amount })] : []),
    getCloseAccountInstruction({ account: source, destination: owner.address, owner }),
  ]);
  expect((await chainRpc<{ value: unknown }>("getAccountInfo", [source, { encoding: "base64" }])).value).toBeNull();
}

/**
 * Starts `run` and resolves once the scenario's RPC has seen one more call of `method` than before (the run reached
 * that step).
 */
async function whenCalled<T>(
  faults: Awaited<ReturnType<typeof faultScenario>>,
  method: string,
  run: () => Promise<T>,
): Promise<{ running: Promise<T> }> {
  const count = ((await faults.calls())[method] ?? 0) + 1;
  const running = run();
  running.catch(() => undefined);
  for (let i = 0; i < 200; i++) {
    if (((await faults.calls())[method] ?? 0) >= count) return { running };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${method} was never called`);
}

const exposureOf = (bookingId: string) =>
  env.DB.prepare(
    "SELECT rail, kind, payer, pay_to AS payTo, lamports, state FROM fee_payer_exposure WHERE booking_id = ?",
  )
    .bind(bookingId)
    .first<Record<string, unknown>>();

describe("the exposure budget on the escrow rail (src/chain/fee-payer-budget/)", () => {
  it(
    "keeper payouts' fees are booked before they are signed: past SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS a payout " +
      "waits with the cap's reason (not a failure), and goes once there is room",
    async () => {
      const d = await escrowDesk("keeper-fee-cap", { SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: "4999" });
      const p = await d.approvedPayment();
      const feePayerBefore = await lamportsOf(d.feePayer);
      const held = itemsFor(await d.keeper(), p.payment);
      expect(held).toEqual([
        expect.objectContaining({
          action: "release",
          signature: null,
          outcome: "held",
          detail: expect.stringMatching(
            /^fee_payer_spend_per_day_exceeded: .*SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: 4999/,
          ),
        }),
      ]);
      expect(await paymentAccount(p.payment)).toMatchObject({ state: PAYMENT_STATE.FUNDED });
      expect(await lamportsOf(d.feePayer)).toBe(feePayerBefore);
      const row = await env.DB.prepare("SELECT failures FROM escrow_watch WHERE payment_pda = ?")
        .bind(p.payment)
        .first<{ failures: number }>();
      expect(row?.failures).toBe(0);

      d.setEnv({ SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: "1000000000" });
      await env.DB.prepare("UPDATE escrow_watch SET next_check_at_ms = 0 WHERE payment_pda = ?").bind(p.payment).run();
      const keeperFeesBefore = await env.DB.prepare(
        "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE rail = 'sla-escrow' AND kind = " +
          "'network_fee'",
      ).first<{ n: number }>();
      expect(itemsFor(await d.keeper(), p.payment)).toEqual([
        expect.objectContaining({ action: "release", outcome: "landed", detail: "released" }),
      ]);
      const keeperFeesAfter = await env.DB.prepare(
        "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE rail = 'sla-escrow' AND kind = " +
          "'network_fee'",
      ).first<{ n: number }>();
      expect(keeperFeesAfter!.n - keeperFeesBefore!.n).toBeGreaterThanOrEqual(5_000);
    },
  );

  it(
    "a sponsored funding's fee is booked for the buyer and the seller before it is signed; past the seller's daily " +
      "cap the next one is refused with the cap's reason and nothing is sent",
    async () => {
      const d = await escrowDesk("sponsored-budget", {
        SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: "yes",
        SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS: "15000",
      });
      const seller = (await fundedBuyer(1, 100_000_000)).address;
      const line = await d.line(USDC, PAYMENT_AMOUNT, seller);
      const buyer = await fundedBuyer(5_000_000, 100_000_000);
      const first = await d.signed(buyer, line, { facilitatorPaysTransactionFees: true });
      const settled = await d.post("/settle", first.body);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
      const fee = await feesOf([settled.body.transaction]);
      const booked = await env.DB.prepare(
        "SELECT rail, payer, pay_to AS payTo, lamports, state FROM fee_payer_exposure WHERE kind = " +
          "'sponsored_funding' " +
          "AND payer = ?",
      )
        .bind(buyer.address)
        .all();
      expect(booked.results).toEqual([
        { rail: "sla-escrow", payer: buyer.address, payTo: seller, lamports: Number(fee), state: "spent" },
      ]);

      const other = await fundedBuyer(5_000_000, 100_000_000);
      const second = await d.signed(other, line, { facilitatorPaysTransactionFees: true });
      const feePayerBefore = await lamportsOf(d.feePayer);
      const refused = await d.post("/settle", second.body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body).toMatchObject({ success: false, errorReason: "fee_payer_spend_per_pay_to_exceeded" });
      expect(refused.body.transaction ?? "").toBe("");
      expect(await paymentAccount(second.built.paymentPda)).toBeNull();
      expect(await lamportsOf(d.feePayer)).toBe(feePayerBefore);
    },
  );

  it(
    "a seller who closes its token account after the keeper planned the release (before the send) makes the payout " +
      "wait: read again just before sending, nothing created at the fee payer's cost",
    async () => {
      const faults = await faultScenario();
      const d = await escrowDesk("payout-recheck", { SOLANA_RPC_URL: faults.rpcUrl });
      const p = await d.approvedPayment();
      // The keeper's blockhash read comes after its plan and before its last look at the accounts: close the account
      // then.
      const sink = await sinkAccount();
      await faults.setFaults({ delayMs: { getLatestBlockhash: 1_500 } });
      const { running: run } = await whenCalled(faults, "getLatestBlockhash", () => d.keeper());
      await closeUsdcAccount(p.seller, sink);
      const item = itemsFor(await run, p.payment);
      await faults.setFaults({});
      expect(item).toEqual([
        expect.objectContaining({
          action: "release",
          signature: null,
          outcome: "held",
          detail: expect.stringMatching(
            /recipient token account .* does not exist yet \(read again just before sending\)/,
          ),
        }),
      ]);
      expect(await paymentAccount(p.payment)).toMatchObject({ state: PAYMENT_STATE.FUNDED });
      expect(
        (
          await chainRpc<{ value: unknown }>("getAccountInfo", [
            await usdcAccountOf(p.seller.address),
            { encoding: "base64" },
          ])
        ).value,
      ).toBeNull();
    },
  );

  it(
    "a token account closed in the send's own window is created by the program at the fee payer's cost: booked once " +
      "for that recipient, whose next payout that day waits",
    async () => {
      const faults = await faultScenario();
      const d = await escrowDesk("payout-race", { SOLANA_RPC_URL: faults.rpcUrl });
      const p = await d.approvedPayment();
      const sellerAta = await usdcAccountOf(p.seller.address);
      // The send reaches the chain 1.5 s after the keeper's last look: the seller closes its account in between.
      const sink = await sinkAccount();
      await faults.setFaults({ delayMs: { sendTransaction: 1_500 } });
      const { running: run } = await whenCalled(faults, "sendTransaction", () => d.keeper());
      await closeUsdcAccount(p.seller, sink);
      const released = itemsFor(await run, p.payment);
      await faults.setFaults({});
      expect(released).toEqual([expect.objectContaining({ action: "release", outcome: "landed", detail: "released" })]);
      const day = new Date().toISOString().slice(0, 10);
      expect(await exposureOf(`payout_token_account:${sellerAta}:${day}`)).toEqual({
        rail: "sla-escrow",
        kind: "rent_spent",
        payer: p.buyer.address,
        payTo: p.seller.address,
        lamports: 2_039_280,
        state: "spent",
      });

      // A second payment to the same seller, the same day: its payout waits, whatever the account's state.
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const { body, built } = await d.signed(buyer, await d.line(USDC, PAYMENT_AMOUNT, p.seller.address));
      expect((await d.post("/settle", body)).body).toMatchObject({ success: true });
      await deliverAndApprove({ buyer, seller: p.seller, uidHex: built.paymentUidHex }, d.post);
      const waiting = itemsFor(await d.keeper(), built.paymentPda);
      expect(waiting).toEqual([
        expect.objectContaining({
          action: "release",
          signature: null,
          outcome: "held",
          detail: expect.stringMatching(/already created recipient token account .* payouts into it wait until/),
        }),
      ]);
      expect(await paymentAccount(built.paymentPda)).toMatchObject({ state: PAYMENT_STATE.FUNDED });
    },
  );
});
