/**
 * The local chain kept between runs (localnet/chain-journal.ts, `npm start`): a chain stopped and started again on the
 * same journal has every account and landed transaction it had, its slot moves on past the last one, and a journal
 * that is not one (or a torn last line) is handled as the journal says.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { address, createSolanaRpc, generateKeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { afterAll, describe, expect, it } from "vitest";
import { readChainJournal, UnreadableChainJournal } from "../../localnet/chain-journal";
import { type RunningLocalnet, startLocalnet } from "../../localnet/server";
import { CLUSTERS } from "../../src/platform/config/networks";
import { latestLifetime, send, type TestChain, testChainOf, transferTransaction } from "./helpers";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const USDC = address(CLUSTERS.devnet.usdcMint);
const directory = mkdtempSync(path.join(tmpdir(), "chain-journal-"));
const running: RunningLocalnet[] = [];

afterAll(async () => {
  await Promise.all(running.map((localnet) => localnet.close().catch(() => {})));
  rmSync(directory, { recursive: true, force: true });
});

/** A chain on the journal at `file`, with the test helpers' RPC clients. */
async function chainOn(file: string): Promise<TestChain> {
  const localnet = await startLocalnet({ port: 0, quiet: true, statePath: file });
  running.push(localnet);
  return testChainOf(localnet);
}

async function rpcCall<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

describe("a chain kept in a journal", () => {
  it("comes back after a restart with its accounts, its transactions and a later slot", async () => {
    const file = path.join(directory, "restart.jsonl");
    const first = await chainOn(file);
    expect(first.localnet.persisted?.restored).toBeNull();
    const payer = await generateKeyPairSigner();
    const recipient = (await generateKeyPairSigner()).address;
    await first.rpc.requestAirdrop(payer.address, 2_000_000_000n as never).send();
    await rpcCall(first.localnet.url, "requestTokenAirdrop", [recipient, "7500000"]);
    const transfer = await transferTransaction(payer, recipient, 300_000_000n, await latestLifetime(first));
    const signature = await send(first, transfer.wire);
    const placed = (await generateKeyPairSigner()).address;
    await rpcCall(first.localnet.url, "localnet_setAccount", [placed, { lamports: 123_456, dataBase64: "AQID" }]);
    const payerBalance = (await first.rpc.getBalance(payer.address).send()).value;
    const slotBefore = await first.rpc.getSlot().send();
    const chainId = first.localnet.persisted!.chainId;
    await first.localnet.close();

    const second = await chainOn(file);
    expect(second.localnet.persisted?.chainId).toBe(chainId);
    expect(second.localnet.persisted?.restored?.transactions).toBeGreaterThanOrEqual(3);
    expect((await second.rpc.getBalance(payer.address).send()).value).toBe(payerBalance);
    expect((await second.rpc.getBalance(recipient).send()).value).toBeGreaterThanOrEqual(300_000_000n);
    const [usdcAccount] = await findAssociatedTokenPda({ owner: recipient, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect((await second.rpc.getTokenAccountBalance(usdcAccount).send()).value.amount).toBe("7500000");
    const placedAccount = await second.rpc.getAccountInfo(placed, { encoding: "base64" }).send();
    expect(placedAccount.value?.lamports).toBe(123_456n);
    expect(placedAccount.value?.data[0]).toBe("AQID");
    const status = await second.rpc.getSignatureStatuses([signature as never]).send();
    expect(status.value[0]?.err).toBeNull();
    const landed = await second.rpc
      .getTransaction(signature as never, { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(landed?.transaction.signatures[0]).toBe(signature);
    expect(await second.rpc.getSlot().send()).toBeGreaterThan(slotBefore);

    // It keeps going from there, and a second restart (after the journal was compacted) keeps that too.
    const again = await transferTransaction(payer, recipient, 100_000_000n, await latestLifetime(second));
    await send(second, again.wire);
    const afterSecond = (await second.rpc.getBalance(recipient).send()).value;
    await second.localnet.close();
    const third = await chainOn(file);
    expect((await third.rpc.getBalance(recipient).send()).value).toBe(afterSecond);
    await third.localnet.close();
  });

  it("without a journal path, a new chain forgets everything", async () => {
    const file = path.join(directory, "kept.jsonl");
    const kept = await chainOn(file);
    const wallet = (await generateKeyPairSigner()).address;
    await kept.rpc.requestAirdrop(wallet, 1_000_000_000n as never).send();
    await kept.localnet.close();
    const fresh = await startLocalnet({ port: 0, quiet: true });
    running.push(fresh);
    expect(fresh.persisted).toBeNull();
    expect((await createSolanaRpc(fresh.url).getBalance(wallet).send()).value).toBe(0n);
  });

  it("skips a torn last line and refuses a file that is not a journal", async () => {
    const file = path.join(directory, "torn.jsonl");
    const chain = await chainOn(file);
    const wallet = (await generateKeyPairSigner()).address;
    await chain.rpc.requestAirdrop(wallet, 1_000_000_000n as never).send();
    await chain.localnet.close();
    appendFileSync(file, '{"t":"accounts","slot":"1","atMs":1,"accounts":[["');
    expect(readChainJournal(file)?.accounts.get(wallet)?.lamports).toBe(1_000_000_000n);

    const notJournal = path.join(directory, "not-a-journal.jsonl");
    writeFileSync(notJournal, "hello\nworld\nagain\n");
    expect(() => readChainJournal(notJournal)).toThrow(UnreadableChainJournal);
    const otherVersion = path.join(directory, "other-version.jsonl");
    writeFileSync(otherVersion, readFileSync(file, "utf8").replace('"version":1', '"version":99'));
    expect(() => readChainJournal(otherVersion)).toThrow(/version 99/);
  });
});
