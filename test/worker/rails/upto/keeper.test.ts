import { env } from "cloudflare:test";
import {
  type Address,
  address,
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getBase58Encoder,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { describe, expect, it } from "vitest";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import type { Env } from "../../../../src/env";
import { KEEPER_RETRY_BASE_MS } from "../../../../src/jobs/keeper/backoff";
import { runRetention } from "../../../../src/jobs/retention/run-retention";
import { loadConfig, RAILS } from "../../../../src/rails/registry";
import { UPTO_CLUSTER_DEFAULTS } from "../../../../src/rails/upto/cluster-defaults";
import { runUptoKeeper } from "../../../../src/rails/upto/keeper/run-keeper";
import { CHANNEL_STATUS, decodeChannel } from "../../../../src/rails/upto/program/accounts";
import { getRequestCloseInstruction } from "../../../../src/rails/upto/program/instructions";
import { PAYMENT_CHANNELS_PROGRAM_ADDRESS } from "../../../../src/rails/upto/program/pda";
import {
  claimDueChannels,
  OPENING_ROW_GRACE_MS,
  recordChannelOpen,
} from "../../../../src/rails/upto/store/upto-channels";
import { chainRpc, fundedBuyer, lamportsOf, sendAs, sendSigned, tokenBalance } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { drainAndCloseUsdcAccount, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import {
  channelAccount,
  madeUpChannelRow,
  uptoBody,
  uptoDeposit,
  uptoLine,
} from "../../../support/workerd/upto-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * The upto keeper (issue 24 §3) on the local chain: a channel never strands funds. The keeper is the Cron Trigger's
 * job; here its engine runs directly with the isolated facilitator's configuration, so the fee payer's lamports move
 * only by what this test makes it do.
 */

async function keeperConfig(facilitatorEnv: Record<string, unknown>) {
  return loadConfig({ ...(env as unknown as Env), ...facilitatorEnv } as Env);
}

async function makeDue(channelId: string): Promise<void> {
  await env.DB.prepare("UPDATE upto_channels SET next_check_at_ms = 0 WHERE channel_id = ?").bind(channelId).run();
}

/**
 * A facilitator with a fee payer of its own (the keeper runs with the same bindings), so its lamports move only by this
 * test.
 */
async function keeperFacilitator(label: string, extraEnv: Record<string, unknown> = {}) {
  const feePayer = labelledKeypair(`${label}/${crypto.randomUUID()}`);
  const facilitatorEnv = { FEE_PAYER_SECRET_KEY: feePayer.secretKeyBase58, ...extraEnv };
  await chainRpc("requestAirdrop", [feePayer.address, 5_000_000_000]);
  const post = (path: string, json: unknown) =>
    callWithEnv(facilitatorEnv, path, {
      method: "POST",
      body: JSON.stringify(json),
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() },
    });
  return { feePayer, facilitatorEnv, post };
}

async function channelRowFull(channelId: string) {
  return env.DB.prepare("SELECT state, failures, last_outcome FROM upto_channels WHERE channel_id = ?")
    .bind(channelId)
    .first<Record<string, unknown>>();
}

function bs58Bytes(text: string): Uint8Array {
  return new Uint8Array(getBase58Encoder().encode(text));
}

async function usdcOf(owner: Address): Promise<bigint> {
  return tokenBalance(await usdcAccountOf(owner));
}

async function channelRow(channelId: string) {
  return env.DB.prepare(
    "SELECT state, last_action, last_outcome, last_detail, last_signature FROM upto_channels WHERE channel_id = ?",
  )
    .bind(channelId)
    .first<Record<string, string>>();
}

/**
 * A facilitator whose fee payer the test holds and a 1 s grace period; a buyer with `buyerUsdc` who deposited 1.5 USDC
 * into a channel the seller never claims from, then asked to close it; the grace period has passed.
 */
async function closingChannel(label: string, extraEnv: Record<string, unknown> = {}, buyerUsdc = 1_500_000) {
  const { feePayer, facilitatorEnv, post } = await keeperFacilitator(label, {
    SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS: "1",
    ...extraEnv,
  });
  const authorizer = await generateKeyPairSigner();
  const buyer = await fundedBuyer(buyerUsdc);
  const line = await uptoLine({
    feePayer: feePayer.address as Address,
    authorizer: authorizer.address,
    withdrawDelay: 1,
    amount: "1500000",
  });
  const deposit = await uptoDeposit(buyer, line);
  const settled = await post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
  expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
  await sendAs(buyer, [
    getRequestCloseInstruction({
      programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS,
      payer: buyer,
      channel: deposit.channelId,
    }),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const escrowRent = await lamportsOf(await usdcAccountOf(deposit.channelId));
  return { feePayer, facilitatorEnv, buyer, line, deposit, escrowRent };
}

describe("upto keeper: a channel never strands funds", () => {
  it(
    "the buyer asked to close and the grace period passed: the keeper seals and distributes — the whole deposit " +
      "back to the buyer, the escrow rent back to the fee payer, one network fee",
    async () => {
      const { feePayer, facilitatorEnv, buyer, line, deposit, escrowRent } = await closingChannel(
        "upto-keeper-close",
        {},
        5_000_000,
      );
      expect(await tokenBalance(await usdcAccountOf(buyer.address))).toBe(3_500_000n);
      expect(decodeChannel((await channelAccount(deposit.channelId))!)!.status).toBe(CHANNEL_STATUS.CLOSING);
      const before = await lamportsOf(feePayer.address as Address);
      await makeDue(deposit.channelId);
      const report = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB);
      const mine = report.items.find((i) => i.channelId === deposit.channelId);
      expect(mine, JSON.stringify(report)).toMatchObject({
        step: "seal_expired_and_distribute",
        outcome: "landed",
        detail: "closed",
      });
      expect(mine!.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

      expect(await tokenBalance(await usdcAccountOf(buyer.address))).toBe(5_000_000n);
      expect(await tokenBalance(await usdcAccountOf(line.payTo))).toBe(1n);
      expect(await lamportsOf(feePayer.address as Address)).toBe(before + escrowRent - 5_000n);
      const channel = decodeChannel((await channelAccount(deposit.channelId))!)!;
      expect(channel.status).toBe(CHANNEL_STATUS.DISTRIBUTED);
      // The channel account's rent comes back with Reclaim after the open-slot window: the row stays queued for it.
      expect(await channelRow(deposit.channelId)).toMatchObject({
        state: "open",
        last_action: "seal_expired_and_distribute",
        last_outcome: "landed",
        last_detail: "closed",
      });

      // A second run right away does nothing and spends nothing (the row waits for the window).
      await makeDue(deposit.channelId);
      const again = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB);
      expect(again.items.find((i) => i.channelId === deposit.channelId)).toMatchObject({
        step: "wait",
        signature: null,
        outcome: "waiting",
      });
      expect(await lamportsOf(feePayer.address as Address)).toBe(before + escrowRent - 5_000n);
    },
  );

  it(
    "fees bounded: an Open the cluster refused leaves no row; rows a dead call left behind are dropped by the next " +
      "run without a transaction",
    async () => {
      const { feePayer, facilitatorEnv, post } = await keeperFacilitator("upto-keeper-gate");
      const authorizer = await generateKeyPairSigner();
      // A buyer without the funds: the deposit is refused by the send's preflight (its ledger row is given back), and
      // the channel row written before the send goes with it.
      const buyer = await fundedBuyer(100);
      const line = await uptoLine({ feePayer: feePayer.address as Address, authorizer: authorizer.address });
      const deposit = await uptoDeposit(buyer, line);
      const refused = await post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
      expect(refused.body).toMatchObject({ success: false, transaction: "" });
      expect(await channelRow(deposit.channelId)).toBeNull();

      // What a call that died between writing the row and hearing the refusal leaves: the same row, and no ledger row.
      // One still `opening`, one that entered the queue before its ledger row went (e.g. retention).
      const leftOpening = { ...leftBehindRow(deposit, line), channelId: `left-opening-${crypto.randomUUID()}` };
      const leftOpen = { ...leftBehindRow(deposit, line), channelId: (await generateKeyPairSigner()).address };
      for (const row of [leftOpening, leftOpen]) expect(await recordChannelOpen(env.DB, row, Date.now())).toBe(true);
      await env.DB.prepare("UPDATE upto_channels SET state = 'open', next_check_at_ms = 0 WHERE channel_id = ?")
        .bind(leftOpen.channelId)
        .run();
      await env.DB.prepare("UPDATE upto_channels SET next_check_at_ms = 0, updated_at_ms = 0 WHERE channel_id = ?")
        .bind(leftOpening.channelId)
        .run();

      const before = await lamportsOf(feePayer.address as Address);
      const report = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB);
      expect(
        report.items.find((i) => i.channelId === leftOpen.channelId),
        JSON.stringify(report),
      ).toMatchObject({ step: "dropped", signature: null, outcome: "dropped" });
      expect(await channelRow(leftOpen.channelId)).toMatchObject({
        state: "dropped",
        last_action: "none",
        last_outcome: "dropped",
      });
      expect(report.items.find((i) => i.channelId === leftOpening.channelId)).toBeUndefined();
      expect(await channelRow(leftOpening.channelId)).toBeNull();
      expect(await lamportsOf(feePayer.address as Address)).toBe(before);
    },
  );

  it(
    "the run's upkeep of `opening` rows: an Open the cluster accepted enters the queue, one that never landed is " +
      "deleted, one still being sent is left alone",
    async () => {
      const now = Date.now();
      const cases = [
        ["confirmed", "confirmed", null, "open"],
        ["pending", "pending", null, "open"],
        ["sending", "submitting", now + 600_000, "opening"],
        ["dead-call", "submitting", now - 1, "open"],
        ["failed", "failed", null, null],
        ["given-back", null, null, null],
      ] as const;
      const ids = new Map<string, string>();
      for (const [name, ledgerState, leaseExpiresAtMs] of cases) {
        const id = `upkeep-${name}-${crypto.randomUUID()}`;
        ids.set(name, id);
        if (ledgerState) {
          await env.DB.prepare(
            `INSERT INTO settlements (message_hash, signature, state, scheme, network, payer, pay_to, asset, amount, ` +
              `lease_expires_at_ms, created_at_ms, updated_at_ms)
           VALUES (?1, ?1, ?2, 'upto', 'devnet', 'payer', 'payTo', 'asset', '1', ?3, ?4, ?4)`,
          )
            .bind(`hash-${id}`, ledgerState, leaseExpiresAtMs, now)
            .run();
        }
        // Not due for years: the run settles the `opening` rows without claiming them.
        const row = madeUpChannelRow(id, `hash-${id}`, now + 10 * 365 * 86_400_000);
        expect(await recordChannelOpen(env.DB, row, now)).toBe(true);
        expect(await channelRow(id)).toMatchObject({ state: "opening" });
      }
      // Within the grace a row whose ledger row is not there yet is left to the call writing it.
      expect(await claimDueChannels(env.DB, crypto.randomUUID(), now, 120_000, 10)).toEqual([]);
      expect(await channelRow(ids.get("given-back")!)).toMatchObject({ state: "opening" });
      const later = now + OPENING_ROW_GRACE_MS;
      expect(await claimDueChannels(env.DB, crypto.randomUUID(), later, 120_000, 10)).toEqual([]);
      for (const [name, , , expected] of cases) {
        const row = await channelRow(ids.get(name)!);
        expect(row === null ? null : row.state, name).toBe(expected);
      }
    },
  );

  it(
    "a deposit sent again after the keeper gave its row up starts the row afresh (`opening`, no failures, no " +
      "claim), so a late landing is still closed",
    async () => {
      const now = Date.now();
      const id = `restart-${crypto.randomUUID()}`;
      const row = madeUpChannelRow(id, `hash-${id}`, now);
      expect(await recordChannelOpen(env.DB, row, now)).toBe(true);
      await env.DB.prepare(
        "UPDATE upto_channels SET state = 'dropped', failures = 3, keeper_claim_id = 'old-run', " +
          "keeper_claim_expires_at_ms = ?2 WHERE channel_id = ?1",
      )
        .bind(id, now + 60_000)
        .run();
      expect(await recordChannelOpen(env.DB, row, now)).toBe(true);
      const after = await env.DB.prepare(
        "SELECT state, failures, keeper_claim_id FROM upto_channels WHERE channel_id = ?",
      )
        .bind(id)
        .first();
      expect(after).toEqual({ state: "opening", failures: 0, keeper_claim_id: null });
      // The same deposit recorded again while its row is live changes nothing of the keeper's.
      await env.DB.prepare("UPDATE upto_channels SET state = 'open', failures = 2 WHERE channel_id = ?").bind(id).run();
      expect(await recordChannelOpen(env.DB, row, now)).toBe(true);
      expect(
        await env.DB.prepare("SELECT state, failures FROM upto_channels WHERE channel_id = ?").bind(id).first(),
      ).toEqual({ state: "open", failures: 2 });
      await env.DB.prepare("DELETE FROM upto_channels WHERE channel_id = ?").bind(id).run();
    },
  );
});

/** A channel row as the deposit's settle writes it (the keeper never reads the chain for these). */
function leftBehindRow(deposit: Record<string, any>, line: Record<string, any>) {
  return {
    channelId: deposit.channelId as string,
    openMessageHash: `never-landed-${crypto.randomUUID()}`,
    openBlockhash: "11111111111111111111111111111111",
    payer: deposit.from as string,
    payTo: line.payTo as string,
    asset: line.asset as string,
    tokenProgram: TOKEN_PROGRAM as string,
    deposit: deposit.deposit as string,
    expiresAt: deposit.expiresAt as number,
    firstCheckAtMs: 0,
    rentLamports: 4_711_920n,
    feePayer: "11111111111111111111111111111111",
  };
}

describe(
  "upto keeper: the buyer's refund never goes to the treasury, and the rent comes back even below the fee " +
    "payer's minimum (issue 32 §3)",
  () => {
    const treasuryUsdc = () => usdcOf(address(UPTO_CLUSTER_DEFAULTS.devnet.treasuryOwner));

    it(
      "the buyer's token account is closed: the keeper sends nothing, records why and backs off; once the buyer " +
        "reopens it, the refund reaches the buyer",
      async () => {
        const c = await closingChannel("upto-keeper-buyer-closed");
        await drainAndCloseUsdcAccount(c.buyer, await usdcAccountOf(c.line.payTo));
        const treasury = await treasuryUsdc();
        const before = await lamportsOf(c.feePayer.address as Address);
        await makeDue(c.deposit.channelId);
        const startedAt = Date.now();
        const held = await runUptoKeeper(await keeperConfig(c.facilitatorEnv), env.DB);
        const item = held.items.find((i) => i.channelId === c.deposit.channelId);
        expect(item, JSON.stringify(held)).toMatchObject({ step: "seal_expired_and_distribute", signature: null });
        expect(item!.outcome).toBe("skipped");
        expect(item!.detail).toMatch(
          new RegExp(
            String.raw`buyer's token account \w+ does not exist, so Distribute would send the buyer's refund of ` +
              "1500000 to the program's treasury; waiting",
          ),
        );
        const row = await env.DB.prepare(
          "SELECT state, failures, next_check_at_ms AS next, last_outcome, last_detail FROM upto_channels WHERE " +
            "channel_id = ?",
        )
          .bind(c.deposit.channelId)
          .first<Record<string, any>>();
        expect(row).toMatchObject({ state: "open", failures: 1, last_outcome: "skipped", last_detail: item!.detail });
        expect(row!.next).toBeGreaterThanOrEqual(startedAt + KEEPER_RETRY_BASE_MS);
        expect(await lamportsOf(c.feePayer.address as Address)).toBe(before);
        expect(decodeChannel((await channelAccount(c.deposit.channelId))!)!.status).toBe(CHANNEL_STATUS.CLOSING);

        await chainRpc("requestTokenAirdrop", [c.buyer.address, 1]); // the buyer's token account exists again
        await makeDue(c.deposit.channelId);
        const closed = await runUptoKeeper(await keeperConfig(c.facilitatorEnv), env.DB);
        expect(
          closed.items.find((i) => i.channelId === c.deposit.channelId),
          JSON.stringify(closed),
        ).toMatchObject({ step: "seal_expired_and_distribute", outcome: "landed", detail: "closed" });
        expect(await usdcOf(c.buyer.address)).toBe(1n + 1_500_000n);
        expect(await treasuryUsdc()).toBe(treasury);
        expect(await lamportsOf(c.feePayer.address as Address)).toBe(before + c.escrowRent - 5_000n);
      },
    );

    it(
      "the exposure budget never holds back a step that returns rent: with the day's spend cap at 0 the seal and " +
        "Distribute still run, and its fee is booked on the upto rail",
      async () => {
        const opened = await closingChannel("upto-keeper-budget-cap");
        const c = {
          ...opened,
          facilitatorEnv: { ...opened.facilitatorEnv, SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: "0" },
        };
        const feesBefore = await env.DB.prepare(
          "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE rail = 'upto' AND kind = " +
            "'network_fee' " +
            "AND state = 'spent'",
        ).first<{ n: number }>();
        await makeDue(c.deposit.channelId);
        const ran = await runUptoKeeper(await keeperConfig(c.facilitatorEnv), env.DB);
        expect(
          ran.items.find((i) => i.channelId === c.deposit.channelId),
          JSON.stringify(ran),
        ).toMatchObject({ step: "seal_expired_and_distribute", outcome: "landed", detail: "closed" });
        expect(await usdcOf(c.buyer.address)).toBe(1_500_000n);
        const feesAfter = await env.DB.prepare(
          "SELECT COALESCE(SUM(lamports), 0) AS n FROM fee_payer_exposure WHERE rail = 'upto' AND kind = " +
            "'network_fee' " +
            "AND state = 'spent'",
        ).first<{ n: number }>();
        expect(feesAfter!.n - feesBefore!.n).toBeGreaterThanOrEqual(5_000);
      },
    );

    it(
      "below SVC_FEE_PAYER_MIN_LAMPORTS the seal and Distribute that return rent still run; with less than one fee " +
        "they wait, not counted as a failure",
      async () => {
        // The channel opens under the default minimum (the exposure budget fronts no rent below it); the keeper then
        // runs with a minimum far above the fee payer's balance.
        const opened = await closingChannel("upto-keeper-below-minimum");
        const c = {
          ...opened,
          facilitatorEnv: { ...opened.facilitatorEnv, SVC_FEE_PAYER_MIN_LAMPORTS: "1000000000000000" },
        };
        const feePayerSigner = await createKeyPairSignerFromBytes(bs58Bytes(c.feePayer.secretKeyBase58));
        // The fee payer is emptied: less than one network fee (the chain keeps no balance below rent exemption but 0).
        const sink = await generateKeyPairSigner();
        const balance = await lamportsOf(c.feePayer.address as Address);
        await sendSigned(feePayerSigner, [
          getTransferSolInstruction({ source: feePayerSigner, destination: sink.address, amount: balance - 5_000n }),
        ]);
        expect(await lamportsOf(c.feePayer.address as Address)).toBe(0n);
        await makeDue(c.deposit.channelId);
        const held = await runUptoKeeper(await keeperConfig(c.facilitatorEnv), env.DB);
        expect(held.paused, JSON.stringify(held)).toMatchObject({ reason: "fee_payer_below_minimum" });
        expect(held.items.find((i) => i.channelId === c.deposit.channelId)).toMatchObject({
          step: "seal_expired_and_distribute",
          signature: null,
          outcome: "held",
          detail: "fee_payer_below_minimum",
        });
        expect(await channelRowFull(c.deposit.channelId)).toMatchObject({ state: "open", failures: 0 });
        expect(await lamportsOf(c.feePayer.address as Address)).toBe(0n);

        // Refilled to one fee's worth and more, still far below the minimum: the step that returns the escrow's rent
        // runs.
        await chainRpc("requestAirdrop", [c.feePayer.address, 1_000_000]);
        await makeDue(c.deposit.channelId);
        // a job reuses a balance reading younger than a second
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const ran = await runUptoKeeper(await keeperConfig(c.facilitatorEnv), env.DB);
        expect(ran.paused, JSON.stringify(ran)).toBeUndefined();
        expect(ran.items.find((i) => i.channelId === c.deposit.channelId)).toMatchObject({
          step: "seal_expired_and_distribute",
          outcome: "landed",
          detail: "closed",
        });
        expect(await lamportsOf(c.feePayer.address as Address)).toBe(1_000_000n + c.escrowRent - 5_000n);
        expect(await usdcOf(c.buyer.address)).toBe(1_500_000n);
      },
    );
  },
);

describe("upto keeper: a flood of opens that never landed cannot starve it (issue 32 §3)", () => {
  it(
    "deposits signed by keys without tokens fail at preflight and leave no row in the queue; the next run reaches " +
      "the real channel that is due",
    async () => {
      const { feePayer, facilitatorEnv, post } = await keeperFacilitator("upto-keeper-flood");
      const authorizer = await generateKeyPairSigner();
      const line = await uptoLine({
        feePayer: feePayer.address as Address,
        authorizer: authorizer.address,
        amount: "500000",
      });

      // The real buyer's channel, confirmed.
      const buyer = await fundedBuyer(5_000_000);
      const real = await uptoDeposit(buyer, line);
      expect((await post("/settle", uptoBody(line, { ...real, type: "deposit" }))).body).toMatchObject({
        success: true,
      });

      // The flood: fresh keys that hold no tokens (the issue sent 120; a run's limit of 6 shows the same with 6).
      const junk: string[] = [];
      for (let i = 0; i < 6; i++) {
        const deposit = await uptoDeposit(await generateKeyPairSigner(), line);
        const refused = await post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
        expect(refused.body, JSON.stringify(refused.body)).toMatchObject({ success: false, transaction: "" });
        junk.push(deposit.channelId);
      }
      // Every row due, the junk ones first (the real channel's voucher window has not ended: the keeper only looks).
      for (const id of junk)
        await env.DB.prepare("UPDATE upto_channels SET next_check_at_ms = 0 WHERE channel_id = ?").bind(id).run();
      await env.DB.prepare("UPDATE upto_channels SET next_check_at_ms = 1 WHERE channel_id = ?")
        .bind(real.channelId)
        .run();
      const openRows = await env.DB.prepare(
        `SELECT COUNT(*) AS n FROM upto_channels WHERE state = 'open' AND channel_id IN ` +
          `(${junk.map(() => "?").join(",")})`,
      )
        .bind(...junk)
        .first<{ n: number }>();
      expect(openRows!.n, "rows of opens the cluster refused are not in the keeper's queue").toBe(0);

      const before = await lamportsOf(feePayer.address as Address);
      const report = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB, junk.length);
      expect(
        report.items.find((i) => i.channelId === real.channelId),
        JSON.stringify(report),
      ).toMatchObject({ step: "wait", signature: null, outcome: "waiting" });
      expect(report.items.filter((i) => junk.includes(i.channelId))).toEqual([]);
      expect(await lamportsOf(feePayer.address as Address)).toBe(before);
    },
  );
});

describe("upto keeper: retention", () => {
  it(
    "finished channel rows are purged after SVC_ESCROW_WATCH_RETENTION_DAYS; open ones stay, and so do stuck ones " +
      "(their rent is still on chain: the exposure budget counts it)",
    async () => {
      const day = 86_400_000;
      const now = Date.now();
      const config = await loadConfig(env as unknown as Env);
      const rows: [string, string, number][] = [
        ["closed-old", "closed", now - 31 * day],
        ["dropped-old", "dropped", now - 31 * day],
        ["stuck-old", "stuck", now - 31 * day],
        ["voided-old", "voided", now - 31 * day],
        ["closed-recent", "closed", now - 29 * day],
        ["open-old", "open", now - 31 * day],
      ];
      const named = rows.map(([name, state, at]) => ({
        name,
        id: `retention-${name}-${crypto.randomUUID()}`,
        state,
        at,
      }));
      for (const r of named) {
        await env.DB.prepare(
          `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, ` +
            `token_program, deposit, expires_at,
           state, next_check_at_ms, created_at_ms, updated_at_ms)
         VALUES (?1, ?1, 'bh', 'payer', 'payTo', 'asset', 'tp', '1', 0, ?2, ?3, ?3, ?3)`,
        )
          .bind(r.id, r.state, r.at)
          .run();
      }
      const outcome = await runRetention(RAILS, config, env as unknown as Env, now);
      expect(outcome.uptoChannelRowsDeleted).toBeGreaterThanOrEqual(3);
      const left: string[] = [];
      for (const r of named)
        if (await env.DB.prepare("SELECT 1 FROM upto_channels WHERE channel_id = ?").bind(r.id).first())
          left.push(r.name);
      expect(left.sort()).toEqual(["closed-recent", "open-old", "stuck-old"]);
      for (const r of named) await env.DB.prepare("DELETE FROM upto_channels WHERE channel_id = ?").bind(r.id).run();
    },
  );
});
