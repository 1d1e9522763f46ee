/**
 * PubSub over WebSocket: kit's standard confirmation helpers (sendAndConfirmTransactionFactory,
 * airdropFactory) work against the local chain, and slot/account notifications arrive.
 */
import {
  airdropFactory,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  lamports,
  type RpcSubscriptions,
  type SolanaRpcSubscriptionsApi,
  sendAndConfirmTransactionFactory,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestLifetime, startTestChain, type TestChain, transferTransaction } from "./helpers";

let chain: TestChain;
let rpcSubscriptions: RpcSubscriptions<SolanaRpcSubscriptionsApi>;

beforeAll(async () => {
  chain = await startTestChain();
  rpcSubscriptions = createSolanaRpcSubscriptions(chain.localnet.wsUrl);
});
afterAll(async () => {
  await chain.localnet.close();
});

describe("PubSub", () => {
  it("confirms airdrops and transfers through kit's subscription-based helpers", async () => {
    const payer = await generateKeyPairSigner();
    const airdrop = airdropFactory({ rpc: chain.rpc, rpcSubscriptions } as never);
    await airdrop({ recipientAddress: payer.address, lamports: lamports(2_000_000_000n), commitment: "confirmed" });
    expect((await chain.rpc.getBalance(payer.address).send()).value).toBe(2_000_000_000n);

    const recipient = (await generateKeyPairSigner()).address;
    const transaction = await transferTransaction(payer, recipient, 1_000_000n, await latestLifetime(chain));
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc: chain.rpc, rpcSubscriptions } as never);
    await sendAndConfirm(transaction as never, { commitment: "confirmed" });
    expect((await chain.rpc.getBalance(recipient).send()).value).toBe(1_000_000n);
  });

  it("streams slot and account notifications", async () => {
    const abort = new AbortController();
    try {
      const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
      const seen: bigint[] = [];
      for await (const notification of slots) {
        seen.push(notification.slot);
        if (seen.length === 2) break;
      }
      expect(seen[1]).toBeGreaterThan(seen[0] ?? 0n);

      const watched = (await generateKeyPairSigner()).address;
      const updates = await rpcSubscriptions
        .accountNotifications(watched, { encoding: "base64" })
        .subscribe({ abortSignal: abort.signal });
      // kit only delivers notifications to an iterator that is already waiting.
      const next = updates[Symbol.asyncIterator]().next();
      await chain.rpc.requestAirdrop(watched, lamports(5_000_000n)).send();
      const notification = await next;
      expect(notification.done).toBe(false);
      expect(notification.value?.value.lamports).toBe(5_000_000n);
    } finally {
      abort.abort();
    }
  });
});
