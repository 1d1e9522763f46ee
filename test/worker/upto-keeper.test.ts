import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { loadConfig } from "../../src/config/load-config";
import type { Env } from "../../src/env";
import { runUptoKeeper } from "../../src/upto-keeper/run-keeper";
import { getChannelWithDeposit, recordChannelOpen } from "../../src/store/upto-channels";
import { runRetention } from "../../src/retention/run-retention";
import { decodeChannel, CHANNEL_STATUS } from "../../src/programs/payment-channels/accounts";
import { getRequestCloseInstruction } from "../../src/programs/payment-channels/instructions";
import { PAYMENT_CHANNELS_PROGRAM_ADDRESS } from "../../src/programs/payment-channels/pda";
import { labelledKeypair } from "../../scripts/lib/keypair";
import { USDC, usdcAccountOf } from "../support/workerd/payment-fixtures";
import { chainRpc, fundedBuyer, lamportsOf, sendAs, tokenBalance } from "../support/workerd/chain";
import { TOKEN_PROGRAM } from "../support/workerd/craft-payment";
import { callWithEnv } from "../support/workerd/worker-http";
import { channelAccount, uptoBody, uptoDeposit, uptoLine } from "../support/workerd/upto-fixtures";

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

async function channelRow(channelId: string) {
  return env.DB.prepare("SELECT state, last_action, last_outcome, last_signature FROM upto_channels WHERE channel_id = ?").bind(channelId).first<Record<string, string>>();
}

describe("upto keeper: a channel never strands funds", () => {
  it("the buyer asked to close and the grace period passed: the keeper seals and distributes — the whole deposit back to the buyer, the escrow rent back to the fee payer, one network fee", async () => {
    const feePayer = labelledKeypair(`upto-keeper-close/${crypto.randomUUID()}`);
    const facilitatorEnv = { FEE_PAYER_SECRET_KEY: feePayer.secretKeyBase58, SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS: "1" };
    await chainRpc("requestAirdrop", [feePayer.address, 5_000_000_000]);
    const post = (path: string, json: unknown) =>
      callWithEnv(facilitatorEnv, path, { method: "POST", body: JSON.stringify(json), headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() } });
    const authorizer = await generateKeyPairSigner();
    const buyer = await fundedBuyer(5_000_000);
    const line = await uptoLine({ feePayer: feePayer.address as Address, authorizer: authorizer.address, withdrawDelay: 1, amount: "1500000" });
    const deposit = await uptoDeposit(buyer, line);
    const settled = await post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
    expect(await tokenBalance(await usdcAccountOf(buyer.address))).toBe(3_500_000n);

    // The seller never claims; the buyer starts the grace period itself.
    await sendAs(buyer, [getRequestCloseInstruction({ programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS, payer: buyer, channel: deposit.channelId })]);
    expect(decodeChannel((await channelAccount(deposit.channelId))!)!.status).toBe(CHANNEL_STATUS.CLOSING);
    await new Promise((resolve) => setTimeout(resolve, 2_100));

    const [escrowAta] = await findAssociatedTokenPda({ owner: deposit.channelId, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    const escrowRent = await lamportsOf(escrowAta);
    const before = await lamportsOf(feePayer.address as Address);
    await makeDue(deposit.channelId);
    const report = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB);
    const mine = report.items.find((i) => i.channelId === deposit.channelId);
    expect(mine, JSON.stringify(report)).toMatchObject({ step: "seal_expired_and_distribute", outcome: "closed" });
    expect(mine!.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    expect(await tokenBalance(await usdcAccountOf(buyer.address))).toBe(5_000_000n);
    expect(await tokenBalance(await usdcAccountOf(line.payTo))).toBe(1n);
    expect(await lamportsOf(feePayer.address as Address)).toBe(before + escrowRent - 5_000n);
    const channel = decodeChannel((await channelAccount(deposit.channelId))!)!;
    expect(channel.status).toBe(CHANNEL_STATUS.DISTRIBUTED);
    // The channel account's rent comes back with Reclaim after the open-slot window: the row stays queued for it.
    expect(await channelRow(deposit.channelId)).toMatchObject({ state: "open", last_outcome: "closed" });

    // A second run right away does nothing and spends nothing (the row waits for the window).
    await makeDue(deposit.channelId);
    const again = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB);
    expect(again.items.find((i) => i.channelId === deposit.channelId)).toMatchObject({ step: "wait", signature: null });
    expect(await lamportsOf(feePayer.address as Address)).toBe(before + escrowRent - 5_000n);
  });

  it("fees bounded: a channel whose deposit the ledger does not show confirmed is dropped without a transaction", async () => {
    const feePayer = labelledKeypair(`upto-keeper-gate/${crypto.randomUUID()}`);
    const facilitatorEnv = { FEE_PAYER_SECRET_KEY: feePayer.secretKeyBase58 };
    await chainRpc("requestAirdrop", [feePayer.address, 5_000_000_000]);
    const post = (path: string, json: unknown) =>
      callWithEnv(facilitatorEnv, path, { method: "POST", body: JSON.stringify(json), headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() } });
    const authorizer = await generateKeyPairSigner();
    // A buyer without the funds: the deposit is refused by the send's preflight (its ledger row is given back), but
    // the channel row was written before the send.
    const buyer = await fundedBuyer(100);
    const line = await uptoLine({ feePayer: feePayer.address as Address, authorizer: authorizer.address });
    const deposit = await uptoDeposit(buyer, line);
    const refused = await post("/settle", uptoBody(line, { ...deposit, type: "deposit" }));
    expect(refused.body).toMatchObject({ success: false, transaction: "" });
    // The settle voids its booking at once (issue 32): the row leaves the exposure budget and the keeper's queue.
    for (let i = 0; i < 100 && (await channelRow(deposit.channelId))?.state !== "voided"; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await channelRow(deposit.channelId)).toMatchObject({ state: "voided" });
    // Written again as a send of the same open writes it (a call that then lost its isolate, say): the keeper's to drop.
    const { channel } = (await getChannelWithDeposit(env.DB, deposit.channelId))!;
    expect(await recordChannelOpen(env.DB, channel, Date.now())).toBe(true);
    expect(await channelRow(deposit.channelId)).toMatchObject({ state: "open" });

    const before = await lamportsOf(feePayer.address as Address);
    await makeDue(deposit.channelId);
    const report = await runUptoKeeper(await keeperConfig(facilitatorEnv), env.DB);
    expect(report.items.find((i) => i.channelId === deposit.channelId)).toMatchObject({ step: "dropped", signature: null });
    expect(await channelRow(deposit.channelId)).toMatchObject({ state: "dropped" });
    expect(await lamportsOf(feePayer.address as Address)).toBe(before);
  });
});

describe("upto keeper: retention", () => {
  it("finished channel rows are purged after SVC_ESCROW_WATCH_RETENTION_DAYS; open ones stay", async () => {
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
    const named = rows.map(([name, state, at]) => ({ name, id: `retention-${name}-${crypto.randomUUID()}`, state, at }));
    for (const r of named) {
      await env.DB.prepare(
        `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, token_program, deposit, expires_at,
           state, next_check_at_ms, created_at_ms, updated_at_ms)
         VALUES (?1, ?1, 'bh', 'payer', 'payTo', 'asset', 'tp', '1', 0, ?2, ?3, ?3, ?3)`,
      )
        .bind(r.id, r.state, r.at)
        .run();
    }
    const outcome = await runRetention(config, env as unknown as Env, now);
    expect(outcome.uptoChannelRowsDeleted).toBeGreaterThanOrEqual(4);
    const left: string[] = [];
    for (const r of named) if (await env.DB.prepare("SELECT 1 FROM upto_channels WHERE channel_id = ?").bind(r.id).first()) left.push(r.name);
    expect(left.sort()).toEqual(["closed-recent", "open-old"]);
    for (const r of named) await env.DB.prepare("DELETE FROM upto_channels WHERE channel_id = ?").bind(r.id).run();
  });
});
