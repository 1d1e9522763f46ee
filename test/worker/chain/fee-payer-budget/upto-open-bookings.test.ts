import { env } from "cloudflare:test";
import { type Address, createKeyPairSignerFromBytes, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { describe, expect, it } from "vitest";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import {
  bookExposure,
  type ExposureBooking,
  settleExposure,
  trimExposure,
} from "../../../../src/chain/fee-payer-budget/budget";
import { TOKEN_PROGRAM_ADDRESS } from "../../../../src/chain/token-programs";
import type { Env } from "../../../../src/env";
import { loadConfig } from "../../../../src/rails/registry";
import { uptoOpenRentLamports } from "../../../../src/rails/upto/channel-rent-caps";
import { CHANNEL_RENT_ROWS, channelOpenRiderSql, voidChannelOpen } from "../../../../src/rails/upto/store/channel-rent";
import {
  type ChannelOpen,
  channelOpenWrite,
  claimDueChannels,
  UPTO_CHANNELS_TABLE,
} from "../../../../src/rails/upto/store/upto-channels";
import { mergeRiders } from "../../../../src/store/claim-riders";
import { readJobsSpent } from "../../../../src/store/fee-payer-exposure";
import { recordKeeperOutcomes } from "../../../../src/store/keeper-queue";
import { claimSettlement } from "../../../../src/store/settlements";
import { chainRpc, fundedBuyer, lamportsOf, sendSigned, tokenBalance } from "../../../support/workerd/chain";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { USDC, usdcAccountOf } from "../../../support/workerd/payment-fixtures";
import { channelAccount, uptoBody, uptoDeposit, uptoLine } from "../../../support/workerd/upto-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * Issue 32 §1 and §4 against the real local chain and D1: every upto open is booked against the exposure budget before
 * the fee payer signs it (each cap refuses with its own reason, concurrent opens never both pass a cap), the booking
 * ends with the channel's row (voided when the open never reached the cluster, returned when the keeper closes the
 * row), and the settle floor reads the truth (rent counted, a low reading read again before a settle is refused).
 */

const RENT = uptoOpenRentLamports(TOKEN_PROGRAM_ADDRESS);
type Facilitator = Awaited<ReturnType<typeof isolatedFacilitator>>;

async function uptoWorld(label: string, extraEnv: Record<string, unknown> = {}, feePayerLamports?: number) {
  const facilitator = await isolatedFacilitator(label, extraEnv, feePayerLamports);
  const authorizer = await generateKeyPairSigner();
  const buyer = await fundedBuyer(20_000_000);
  return { facilitator, authorizer, buyer };
}

/** A fresh line (its own payTo) and the buyer's signed deposit for it. */
async function deposit(
  w: { facilitator: Facilitator; authorizer: KeyPairSigner },
  buyer: KeyPairSigner,
  options: { amount?: string; payTo?: Address } = {},
) {
  const line = await uptoLine({
    feePayer: w.facilitator.feePayer,
    authorizer: w.authorizer.address,
    amount: options.amount ?? "1000000",
    ...(options.payTo ? { payTo: options.payTo } : {}),
  });
  const payload = await uptoDeposit(buyer, line);
  return { line, payload, body: uptoBody(line, { ...payload, type: "deposit" }) };
}

async function rowState(channelId: string): Promise<string | null> {
  return (
    (
      await env.DB.prepare("SELECT state FROM upto_channels WHERE channel_id = ?")
        .bind(channelId)
        .first<{ state: string }>()
    )?.state ?? null
  );
}

/** A refused deposit: the reason and status, no channel, nothing moved from the fee payer or the buyer. */
async function expectRefused(
  w: { facilitator: Facilitator },
  d: Awaited<ReturnType<typeof deposit>>,
  buyer: KeyPairSigner,
  status: number,
  reason: string,
) {
  const feePayerBefore = await lamportsOf(w.facilitator.feePayer);
  const buyerBefore = await tokenBalance(await usdcAccountOf(buyer.address));
  const refused = await w.facilitator.post("/settle", d.body);
  expect(refused.status, JSON.stringify(refused.body)).toBe(status);
  expect(refused.body).toMatchObject({ success: false, errorReason: reason, transaction: "" });
  expect(await channelAccount(d.payload.channelId)).toBeNull();
  expect(await lamportsOf(w.facilitator.feePayer)).toBe(feePayerBefore);
  expect(await tokenBalance(await usdcAccountOf(buyer.address))).toBe(buyerBefore);
  return refused.body;
}

describe("upto opens are booked against the exposure budget before the fee payer signs", () => {
  it(
    "concurrent deposits of one buyer at its channel cap: exactly the cap opens, the others 429 with nothing " +
      "signed; a seller's retry of an open one still hears its success",
    async () => {
      const w = await uptoWorld("budget-concurrent", { SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: "3" });
      const deposits = [];
      for (let i = 0; i < 6; i++) deposits.push(await deposit(w, w.buyer));
      const feePayerBefore = await lamportsOf(w.facilitator.feePayer);
      const answers = await Promise.all(
        deposits.map((d, i) => w.facilitator.post("/settle", d.body, { "X-Correlation-ID": `concurrent-${i}` })),
      );
      const opened = answers.filter((a) => a.body.success === true);
      expect(opened, JSON.stringify(answers.map((a) => a.body))).toHaveLength(3);
      for (const answer of answers) {
        if (answer.body.success) continue;
        expect(answer.status).toBe(429);
        expect(answer.body).toMatchObject({ errorReason: "upto_open_channels_per_payer_exceeded", transaction: "" });
        expect(answer.body.errorMessage).toMatch(/SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: 3/);
      }
      const onChain = await Promise.all(deposits.map((d) => channelAccount(d.payload.channelId)));
      expect(onChain.filter((c) => c !== null)).toHaveLength(3);
      expect(await tokenBalance(await usdcAccountOf(w.buyer.address))).toBe(20_000_000n - 3_000_000n);
      // Three opens' rent and fees, nothing for the three refused ones.
      const spent = feePayerBefore - (await lamportsOf(w.facilitator.feePayer));
      expect(spent).toBeGreaterThanOrEqual(3n * (RENT + 10_000n));
      expect(spent).toBeLessThanOrEqual(3n * (RENT + 11_000n));

      // At the cap, the seller retrying an open that succeeded is answered from the ledger, not refused by the cap.
      const first = answers.findIndex((a) => a.body.success === true);
      const retry = await w.facilitator.post("/settle", deposits[first]!.body, {
        "X-Correlation-ID": `concurrent-${first}`,
      });
      expect(retry.body, JSON.stringify(retry.body)).toMatchObject({ success: true, alreadySettled: true });
    },
  );

  it(
    "each cap refuses with its own reason: opens per hour, channels and rent per payTo, rent per payer, the share " +
      "of the balance, the minimum",
    async () => {
      const perHour = await uptoWorld("budget-hour", { SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR: "1" });
      expect(
        (await perHour.facilitator.post("/settle", (await deposit(perHour, perHour.buyer)).body)).body,
      ).toMatchObject({ success: true });
      await expectRefused(
        perHour,
        await deposit(perHour, perHour.buyer),
        perHour.buyer,
        429,
        "upto_opens_per_payer_per_hour_exceeded",
      );

      const perPayTo = await uptoWorld("budget-pay-to", { SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO: "1" });
      const seller = (await deposit(perPayTo, perPayTo.buyer)).line.payTo as Address;
      expect(
        (await perPayTo.facilitator.post("/settle", (await deposit(perPayTo, perPayTo.buyer, { payTo: seller })).body))
          .body,
      ).toMatchObject({ success: true });
      const otherBuyer = await fundedBuyer(5_000_000);
      await expectRefused(
        perPayTo,
        await deposit(perPayTo, otherBuyer, { payTo: seller }),
        otherBuyer,
        429,
        "upto_open_channels_per_pay_to_exceeded",
      );

      const rentPerPayTo = await uptoWorld("budget-rent-pay-to", {
        SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS: String(RENT),
      });
      const seller2 = (await deposit(rentPerPayTo, rentPerPayTo.buyer)).line.payTo as Address;
      expect(
        (
          await rentPerPayTo.facilitator.post(
            "/settle",
            (
              await deposit(rentPerPayTo, rentPerPayTo.buyer, { payTo: seller2 })
            ).body,
          )
        ).body,
      ).toMatchObject({ success: true });
      await expectRefused(
        rentPerPayTo,
        await deposit(rentPerPayTo, otherBuyer, { payTo: seller2 }),
        otherBuyer,
        429,
        "fee_payer_rent_per_pay_to_exceeded",
      );

      const rentPerPayer = await uptoWorld("budget-rent-payer", {
        SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS: String(2n * RENT - 1n),
      });
      expect(
        (await rentPerPayer.facilitator.post("/settle", (await deposit(rentPerPayer, rentPerPayer.buyer)).body)).body,
      ).toMatchObject({ success: true });
      const body = await expectRefused(
        rentPerPayer,
        await deposit(rentPerPayer, rentPerPayer.buyer),
        rentPerPayer.buyer,
        429,
        "fee_payer_rent_per_payer_exceeded",
      );
      expect(body.errorMessage).toContain(`front ${RENT} lamports of rent`);

      // 1 bps of a 5 SOL fee payer is 500,000 lamports: not one channel's rent.
      const share = await uptoWorld("budget-share", { SVC_FEE_PAYER_MAX_RENT_SHARE_BPS: "1" });
      await expectRefused(share, await deposit(share, share.buyer), share.buyer, 503, "fee_payer_rent_share_exceeded");

      // The minimum sits 1 lamport above what the fee payer keeps after one channel's rent.
      const minimum = await uptoWorld("budget-minimum", {}, 1_000_000_000);
      minimum.facilitator.setEnv({ SVC_FEE_PAYER_MIN_LAMPORTS: String(1_000_000_000n - RENT + 1n) });
      await expectRefused(
        minimum,
        await deposit(minimum, minimum.buyer),
        minimum.buyer,
        503,
        "fee_payer_below_minimum",
      );
    },
  );

  it("a channel's rent is returned when the keeper closes its row: the payer's cap frees up", async () => {
    const w = await uptoWorld("budget-returned", { SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: "1" });
    const first = await deposit(w, w.buyer);
    expect((await w.facilitator.post("/settle", first.body)).body).toMatchObject({ success: true });
    await expectRefused(w, await deposit(w, w.buyer), w.buyer, 429, "upto_open_channels_per_payer_exceeded");

    // The keeper's own queue statements: claim the row, record it closed (what a landed Reclaim records).
    await env.DB.prepare("UPDATE upto_channels SET next_check_at_ms = 0 WHERE channel_id = ?")
      .bind(first.payload.channelId)
      .run();
    const claimId = crypto.randomUUID();
    const claimed = await claimDueChannels(env.DB, claimId, Date.now(), 60_000, 1_000);
    expect(claimed.map((c) => c.channelId)).toContain(first.payload.channelId);
    const outcome = {
      state: "closed" as const,
      nextCheckAtMs: Date.now(),
      failures: 0,
      action: "reclaim",
      signature: null,
      outcome: "landed" as const,
      detail: "reclaimed",
      keepClaim: false,
    };
    await recordKeeperOutcomes(
      env.DB,
      UPTO_CHANNELS_TABLE,
      claimId,
      [{ ...outcome, key: first.payload.channelId }],
      Date.now(),
    );
    expect(await rowState(first.payload.channelId)).toBe("closed");

    expect((await w.facilitator.post("/settle", (await deposit(w, w.buyer)).body)).body).toMatchObject({
      success: true,
    });
  });

  it(
    "an open refused at preflight (the buyer is short) is dropped at once: it holds no cap, and the buyer is the " +
      "one blamed",
    async () => {
      const w = await uptoWorld("budget-voided", { SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: "1" });
      const poor = await fundedBuyer(500_000);
      const short = await deposit(w, poor);
      const refused = await w.facilitator.post("/settle", short.body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toMatchObject({ success: false, errorReason: "insufficient_funds" });
      // Its row goes with the refusal (upto settle's dropUnlandedOpen): nothing is left to count or to queue.
      expect(await rowState(short.payload.channelId)).toBeNull();

      await chainRpc("requestTokenAirdrop", [poor.address, 2_000_000]);
      const paid = await w.facilitator.post("/settle", (await deposit(w, poor)).body);
      expect(paid.body, JSON.stringify(paid.body)).toMatchObject({ success: true });
    },
  );

  it(
    "the fee payer short of rent at send time (another isolate spent it): 503 facilitator_insufficient_funds, never " +
      "the buyer's insufficient_funds; the open is dropped",
    async () => {
      const w = await uptoWorld("budget-rent-short");
      // This isolate's reading says 5 SOL; then the fee payer's SOL goes elsewhere, leaving fees but no rent.
      expect((await callWithEnv(w.facilitator.env, "/health")).body.feePayerBalance.lamports).toBe("5000000000");
      const feePayer = await createKeyPairSignerFromBytes(w.facilitator.feePayerKey.secretKey);
      const sink = (await generateKeyPairSigner()).address;
      await sendSigned(feePayer, [
        getTransferSolInstruction({
          source: feePayer,
          destination: sink,
          amount: 5_000_000_000n - 1_000_000n - 5_000n,
        }),
      ]);
      expect(await lamportsOf(w.facilitator.feePayer)).toBe(1_000_000n);

      const d = await deposit(w, w.buyer);
      const refused = await w.facilitator.post("/settle", d.body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body).toMatchObject({
        success: false,
        errorReason: "facilitator_insufficient_funds",
        transaction: "",
      });
      expect(refused.body.errorMessage).toMatch(/fee payer cannot front the rent/);
      expect(await tokenBalance(await usdcAccountOf(w.buyer.address))).toBe(20_000_000n);
      expect(await rowState(d.payload.channelId)).toBeNull();
    },
  );

  it("/health shows the rent out by rail and each cap's headroom", async () => {
    const w = await uptoWorld("budget-health", { SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: "4" });
    const before = (await callWithEnv(w.facilitator.env, "/health")).body.feePayerExposure;
    expect(before.caps.uptoChannelsPerPayer).toMatchObject({ key: "SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER", limit: "4" });
    for (let i = 0; i < 2; i++)
      expect((await w.facilitator.post("/settle", (await deposit(w, w.buyer)).body)).body).toMatchObject({
        success: true,
      });
    const health = (await callWithEnv(w.facilitator.env, "/health")).body;
    const after = health.feePayerExposure;
    expect(BigInt(after.rentOutLamports.byRail.upto) - BigInt(before.rentOutLamports.byRail.upto ?? "0")).toBe(
      2n * RENT,
    );
    expect(after.rentOutLamports.total).toBe(after.rentOutLamports.byRail.upto);
    expect(after.uptoOpenChannels - before.uptoOpenChannels).toBe(2);
    // This test's buyer is the tightest one unless an earlier test left a buyer with more (the caps were lower there).
    expect(Number(after.caps.uptoChannelsPerPayer.used)).toBeGreaterThanOrEqual(2);
    expect(after.caps.uptoChannelsPerPayer.headroom).toBe(
      String(Math.max(0, 4 - Number(after.caps.uptoChannelsPerPayer.used))),
    );
    const limit = (BigInt(health.feePayerBalance.lamports) * 5_000n) / 10_000n;
    expect(after.caps.rentShare).toMatchObject({
      limit: limit.toString(),
      used: after.rentOutLamports.total,
      headroom: (limit - BigInt(after.rentOutLamports.total)).toString(),
    });
    expect(after.caps.spendPerDay).toMatchObject({
      key: "SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS",
      limit: "1000000000",
    });
    // This facilitator's own key fronted exactly these two channels' rent, and each row says so.
    expect(after.rentOutLamports.byFeePayer[w.facilitator.feePayer]).toBe((2n * RENT).toString());
    const byKey = await env.DB.prepare("SELECT COUNT(*) AS n FROM upto_channels WHERE fee_payer = ?")
      .bind(w.facilitator.feePayer)
      .first<{ n: number }>();
    expect(byKey!.n).toBe(2);
  });
});

describe("every booking records the fee payer that fronted it (key rotation)", () => {
  it(
    "rows booked under two keys keep each key; a voided booking booked again takes the key in use; /health sums per " +
      "key",
    async () => {
      const [oldKey, newKey] = [
        labelledKeypair(`rotation-old/${crypto.randomUUID()}`),
        labelledKeypair(`rotation-new/${crypto.randomUUID()}`),
      ];
      const configOf = (key: typeof oldKey) =>
        loadConfig({ ...(env as unknown as Env), FEE_PAYER_SECRET_KEY: key.secretKeyBase58 } as Env);
      const [before, after] = [await configOf(oldKey), await configOf(newKey)];
      const payer = (await generateKeyPairSigner()).address;
      const booking = (id: string, kind: ExposureBooking["kind"]): ExposureBooking => ({
        bookingId: `rotation:${payer}:${id}`,
        rail: "exact",
        kind,
        payer,
        payTo: null,
        lamports: 2_039_280n,
      });
      const options = { balanceLamports: 100_000_000_000n };
      expect(await bookExposure(before, env.DB, booking("held", "rent_held"), options)).toEqual({ ok: true });
      expect(await bookExposure(before, env.DB, booking("spent", "rent_spent"), options)).toEqual({ ok: true });
      expect(await bookExposure(before, env.DB, booking("revived", "rent_held"), options)).toEqual({ ok: true });
      expect(await settleExposure(env.DB, booking("revived", "rent_held").bookingId, "voided")).toBe(true);
      // The key rotates: a new booking, and the voided one booked again, are the new key's.
      expect(await bookExposure(after, env.DB, booking("new", "rent_held"), options)).toEqual({ ok: true });
      expect(await bookExposure(after, env.DB, booking("revived", "rent_held"), options)).toEqual({ ok: true });
      const rows = await env.DB.prepare(
        "SELECT booking_id AS id, fee_payer AS feePayer FROM fee_payer_exposure WHERE payer = ? ORDER BY booking_id",
      )
        .bind(payer)
        .all();
      expect(rows.results).toEqual([
        { id: `rotation:${payer}:held`, feePayer: oldKey.address },
        { id: `rotation:${payer}:new`, feePayer: newKey.address },
        { id: `rotation:${payer}:revived`, feePayer: newKey.address },
        { id: `rotation:${payer}:spent`, feePayer: oldKey.address },
      ]);
      const health = (await callWithEnv({}, "/health")).body.feePayerExposure;
      expect(health.rentOutLamports.byFeePayer).toMatchObject({
        [oldKey.address]: "2039280",
        [newKey.address]: "4078560",
      });
      expect(health.spentLast24hLamports.byFeePayer).toMatchObject({ [oldKey.address]: "2039280" });
    },
  );
});

describe("a booking and the channel's own write", () => {
  it(
    "the channel's row and the open's ledger row are one transaction: a refused booking claims nothing, the same " +
      "open books once, a live open cannot be voided",
    async () => {
      const open: ChannelOpen = {
        channelId: (await generateKeyPairSigner()).address,
        openMessageHash: crypto.randomUUID(),
        openBlockhash: "11111111111111111111111111111111",
        payer: (await generateKeyPairSigner()).address,
        payTo: (await generateKeyPairSigner()).address,
        asset: USDC,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
        deposit: "1000000",
        expiresAt: Math.floor(Date.now() / 1000) + 60,
        firstCheckAtMs: Date.now() + 180_000,
        rentLamports: RENT,
        feePayer: (await generateKeyPairSigner()).address,
      };
      const limits = {
        channelsPerPayer: 1,
        channelsPerPayTo: 1,
        opensPerPayerSince: 1,
        opensSinceMs: Date.now() - 3_600_000,
        rentPerPayerLamports: RENT,
        rentPerPayToLamports: RENT,
        totalRentLamports: 10n ** 15n,
      };
      const claimOf = (o: ChannelOpen) => ({
        messageHash: o.openMessageHash,
        signature: `sig-${o.openMessageHash}`,
        scheme: "upto",
        network: "devnet",
        payer: o.payer,
        payTo: o.payTo,
        merchantWallet: o.payTo,
        asset: o.asset,
        amount: o.deposit,
        lastValidBlockHeight: null,
        maxTimeoutSeconds: 60,
        leaseId: crypto.randomUUID(),
        leaseExpiresAtMs: Date.now() + 15_000,
      });
      const book = (o: ChannelOpen) =>
        claimSettlement(
          env.DB,
          claimOf(o),
          mergeRiders([channelOpenRiderSql(o, channelOpenWrite(o, Date.now()), limits, [CHANNEL_RENT_ROWS])]),
        );
      const ledgerRow = async (hash: string) =>
        env.DB.prepare("SELECT state FROM settlements WHERE message_hash = ?").bind(hash).first();
      expect(await book(open)).toEqual({ claimed: true });
      expect(await rowState(open.channelId)).toBe("opening");
      // The same open again at its caps: the ledger row is there (a retry reconciles), nothing counted twice.
      expect(await book(open)).toMatchObject({ claimed: false, existing: { messageHash: open.openMessageHash } });
      const other = {
        ...open,
        channelId: (await generateKeyPairSigner()).address,
        openMessageHash: crypto.randomUUID(),
      };
      const refused = await book(other);
      expect(refused).toMatchObject({ claimed: false, refused: [{ payerChannels: 1, payerRent: Number(RENT) }] });
      expect(await rowState(other.channelId)).toBeNull();
      expect(await ledgerRow(other.openMessageHash)).toBeNull();
      // While its ledger row is live, nothing voids the open's rent.
      expect(await voidChannelOpen(env.DB, open.channelId, open.openMessageHash, Date.now())).toBe(false);
      expect(await rowState(open.channelId)).toBe("opening");
    },
  );
});

describe("the generic booking API (the other spenders' door)", () => {
  it(
    "held rent is capped per payer, per payTo and in total, the jobs' spending by their own pool; a booking books " +
      "once; a voided one may book again; concurrent bookings never both pass a cap",
    async () => {
      const config = await loadConfig({
        ...(env as unknown as Env),
        SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS: "5000000",
      } as Env);
      const balanceLamports = 100_000_000_000n;
      const payer = (await generateKeyPairSigner()).address;
      const payTo = (await generateKeyPairSigner()).address;
      const held = (id: string, lamports: bigint): ExposureBooking => ({
        bookingId: `test_rent:${payer}:${id}`,
        rail: "sla-escrow",
        kind: "rent_held",
        payer,
        payTo: null,
        lamports,
      });
      const book = (booking: ExposureBooking) => bookExposure(config, env.DB, booking, { balanceLamports });

      expect(await book(held("a", 3_000_000n))).toEqual({ ok: true });
      expect(await book(held("a", 3_000_000n))).toEqual({ ok: true }); // the same spend again: no second count
      expect(await book(held("b", 3_000_000n))).toMatchObject({
        ok: false,
        reason: "fee_payer_rent_per_payer_exceeded",
        code: "RATE_LIMITED",
      });
      expect(await settleExposure(env.DB, held("a", 0n).bookingId, "returned")).toBe(true);
      // only a live booking moves
      expect(await settleExposure(env.DB, held("a", 0n).bookingId, "returned")).toBe(false);
      expect(await book(held("b", 3_000_000n))).toEqual({ ok: true });

      // The operator's jobs: their own pool only (a payTo recorded on the booking is not capped); concurrent bookings
      // never both pass it.
      const fee = (id: string): ExposureBooking => ({
        bookingId: `test_fee:${payTo}:${id}`,
        rail: "sweep",
        kind: "network_fee",
        payer: null,
        payTo,
        lamports: 10_000n,
      });
      // Room for exactly three more, whatever this file's other tests booked on the jobs' pool before.
      const before = await readJobsSpent(env.DB, Date.now() - 86_400_000);
      const jobs = await loadConfig({
        ...(env as unknown as Env),
        SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: String(before + 30_000n),
      } as Env);
      const answers = await Promise.all(
        ["1", "2", "3", "4", "5"].map((id) => bookExposure(jobs, env.DB, fee(id), { balanceLamports })),
      );
      expect(
        answers.filter((a) => a.ok),
        JSON.stringify(answers),
      ).toHaveLength(3);
      for (const refused of answers.filter((a) => !a.ok))
        expect(refused).toMatchObject({ reason: "fee_payer_spend_per_day_exceeded" });
      const booked = ["1", "2", "3", "4", "5"].filter((_, i) => answers[i]!.ok);
      expect(await settleExposure(env.DB, fee(booked[0]!).bookingId, "voided")).toBe(true);
      // voided: may book again, within the caps
      expect(await bookExposure(jobs, env.DB, fee(booked[0]!), { balanceLamports })).toEqual({ ok: true });
      const pools = await env.DB.prepare(
        "SELECT DISTINCT pool FROM fee_payer_exposure WHERE pay_to = ? AND rail = 'sweep'",
      )
        .bind(payTo)
        .all();
      expect(pools.results).toEqual([{ pool: "jobs" }]);

      // The fee payer's own totals: nothing spent beyond a zero daily cap, no rent out beyond a zero share.
      const closed = await loadConfig({
        ...(env as unknown as Env),
        SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: "0",
        SVC_FEE_PAYER_MAX_RENT_SHARE_BPS: "0",
      } as Env);
      expect(await bookExposure(closed, env.DB, fee("total"), { balanceLamports })).toMatchObject({
        ok: false,
        reason: "fee_payer_spend_per_day_exceeded",
        code: "SERVICE_UNAVAILABLE",
      });
      expect(await bookExposure(closed, env.DB, held("total", 1n), { balanceLamports })).toMatchObject({
        ok: false,
        reason: "fee_payer_rent_share_exceeded",
        code: "SERVICE_UNAVAILABLE",
      });

      // Fronting anything must leave the fee payer above its minimum.
      expect(
        await bookExposure(config, env.DB, held("c", 1n), { balanceLamports: config.feePayerFloors.minLamports }),
      ).toMatchObject({ ok: false, reason: "fee_payer_below_minimum" });
    },
  );
});

describe("the settle floor reads the truth", () => {
  it(
    "a fee payer empty at first and topped up settles within 10 s; the refusal says which floor and which " + "balance",
    async () => {
      const facilitator = await isolatedFacilitator("floor-topped-up", {}, 0);
      const buyer = await fundedBuyer(10_000_000);
      const body = await facilitator.signedBody(buyer, await facilitator.line(USDC, "1000000"));
      const health = (await callWithEnv(facilitator.env, "/health")).body;
      expect(health.feePayerBalance).toMatchObject({
        lamports: "0",
        state: "below_settle_floor",
        belowFloor: "SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS",
      });
      expect(health.feePayerBalance.readAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      const refused = await facilitator.post("/settle", body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body).toMatchObject({ errorReason: "fee_payer_below_settle_floor" });
      expect(refused.body.errorMessage).toMatch(
        new RegExp(
          `fee ` +
            `payer ${facilitator.feePayer} holds 0 lamports \\(its balance read at .*\\), below its settle floor ` +
            `SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS \\(10000000\\)`,
        ),
      );

      await chainRpc("requestAirdrop", [facilitator.feePayer, 1_000_000_000]);
      const toppedUpAt = Date.now();
      let answer = await facilitator.post("/settle", body);
      while (answer.body.errorReason === "fee_payer_below_settle_floor" && Date.now() - toppedUpAt < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = await facilitator.post("/settle", body);
      }
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: true });
      expect(Date.now() - toppedUpAt).toBeLessThan(10_000);
    },
  );

  it("an upto open lowers the isolate's reading by its rent and its fee", async () => {
    const w = await uptoWorld("floor-rent");
    const reading = BigInt((await callWithEnv(w.facilitator.env, "/health")).body.feePayerBalance.lamports);
    // Both floors at the reading minus one channel's rent: the open fits exactly, and leaves the reading below them.
    const floor = String(reading - RENT);
    w.facilitator.setEnv({ SVC_FEE_PAYER_MIN_LAMPORTS: floor, SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS: floor });
    const opened = await w.facilitator.post("/settle", (await deposit(w, w.buyer)).body);
    expect(opened.body, JSON.stringify(opened.body)).toMatchObject({ success: true });
    const landed = await chainRpc<{ meta: { fee: number } }>("getTransaction", [
      opened.body.transaction,
      { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
    ]);

    const exact = await w.facilitator.signedBody(w.buyer, await w.facilitator.line(USDC, "1000000"));
    const next = await w.facilitator.post("/settle", exact);
    expect(next.status, JSON.stringify(next.body)).toBe(503);
    expect(next.body).toMatchObject({ errorReason: "fee_payer_below_settle_floor" });
    expect(next.body.errorMessage).toContain(`holds ${reading - RENT - BigInt(landed.meta.fee)} lamports`);
  });
});

describe("guards of the booking API that only a direct call reaches", () => {
  const jobFee = (lamports: bigint): ExposureBooking => ({
    bookingId: `test_guard:${crypto.randomUUID()}`,
    rail: "sweep",
    kind: "network_fee",
    payer: null,
    payTo: null,
    lamports,
  });
  const lamportsOfBooking = async (bookingId: string) =>
    (await env.DB.prepare("SELECT lamports, state FROM fee_payer_exposure WHERE booking_id = ?")
      .bind(bookingId)
      .first<{ lamports: number; state: string }>()) ?? null;

  it(
    "trimExposure only ever lowers a booking: asked to raise it, it changes nothing (a raise would pass the caps " +
      "unchecked)",
    async () => {
      const config = await loadConfig(env as unknown as Env);
      const booking = jobFee(10_000n);
      expect(await bookExposure(config, env.DB, booking, { balanceLamports: 10n ** 12n })).toEqual({ ok: true });
      expect(await trimExposure(env.DB, booking.bookingId, 50_000n)).toBe(false);
      expect(await lamportsOfBooking(booking.bookingId)).toEqual({ lamports: 10_000, state: "spent" });
      expect(await trimExposure(env.DB, booking.bookingId, 4_000n)).toBe(true);
      expect(await lamportsOfBooking(booking.bookingId)).toEqual({ lamports: 4_000, state: "spent" });
      expect(await trimExposure(env.DB, booking.bookingId, 0n)).toBe(true); // 0 voids it
      expect(await lamportsOfBooking(booking.bookingId)).toEqual({ lamports: 4_000, state: "voided" });
    },
  );

  it(
    "a live booking booked again with a larger amount keeps its amount: only a voided booking is written anew " +
      "(under the caps)",
    async () => {
      const config = await loadConfig(env as unknown as Env);
      const booking = jobFee(10_000n);
      expect(await bookExposure(config, env.DB, booking, { balanceLamports: 10n ** 12n })).toEqual({ ok: true });
      expect(
        await bookExposure(config, env.DB, { ...booking, lamports: 900_000n }, { balanceLamports: 10n ** 12n }),
      ).toEqual({
        ok: true,
      });
      expect(await lamportsOfBooking(booking.bookingId)).toEqual({ lamports: 10_000, state: "spent" });
      // A voided one is booked anew, at the new amount and under the caps.
      expect(await settleExposure(env.DB, booking.bookingId, "voided")).toBe(true);
      expect(
        await bookExposure(config, env.DB, { ...booking, lamports: 20_000n }, { balanceLamports: 10n ** 12n }),
      ).toEqual({
        ok: true,
      });
      expect(await lamportsOfBooking(booking.bookingId)).toEqual({ lamports: 20_000, state: "spent" });
    },
  );

  it(
    "a spent booking never moves to returned or spent again: only held rent ends that way (returning spent lamports " +
      "would take them out of the daily caps)",
    async () => {
      const config = await loadConfig(env as unknown as Env);
      const booking = jobFee(10_000n);
      expect(await bookExposure(config, env.DB, booking, { balanceLamports: 10n ** 12n })).toEqual({ ok: true });
      expect(await settleExposure(env.DB, booking.bookingId, "returned")).toBe(false);
      expect(await settleExposure(env.DB, booking.bookingId, "spent")).toBe(false);
      expect(await lamportsOfBooking(booking.bookingId)).toEqual({ lamports: 10_000, state: "spent" });
    },
  );
});
