import { env } from "cloudflare:test";
import type { Address, KeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { TEST_FEE_PAYER } from "../../../../support/keys";
import type { FaultMode } from "../../../../support/node/rpc-fault-proxy";
import {
  chainRpc,
  fundedBuyer,
  lamportsOf,
  nextBlockhash,
  signAndSend,
  tokenBalance,
} from "../../../../support/workerd/chain";
import {
  createUsdcAccount,
  drainAndCloseUsdcAccount,
  enrichedLine,
  feeDestination,
  signedPaymentBody,
  USDC,
  usdcAccountOf,
} from "../../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../../support/workerd/worker-http";

/**
 * Issue 20 §1, against the real local chain and real D1: a seller cannot farm token-account rent out of sweeps, and a
 * sweep the cluster answers "already processed" is recorded as what really happened. The fee payer's spending is
 * measured per transaction from the chain's own records (other test files share the fee payer, so its balance alone
 * would not say who spent what).
 */

const BEARER = { Authorization: "Bearer test-operator-token" };

async function sweepNow() {
  // With no cooldown, a sweep of "everything" on the previous round's blockhash would be that round's transaction
  // again.
  await nextBlockhash();
  const response = await call("/sweep", { method: "POST", headers: BEARER, json: { cooldownSeconds: 0 } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** A seller that activated its own USDC vault (sovereign) and whose keys the test holds. */
async function sovereignUsdcSeller(): Promise<KeyPairSigner> {
  const seller = await fundedBuyer(0);
  const provision = await call("/sellers/provision-tx", {
    method: "POST",
    json: { wallet: seller.address, asset: "USDC" },
  });
  expect(provision.status, JSON.stringify(provision.body)).toBe(200);
  await signAndSend(provision.body.transaction, [seller]);
  return seller;
}

async function pay(seller: Address, amount: string): Promise<void> {
  const buyer = await fundedBuyer(5_000_000);
  const settled = await call("/settle", {
    method: "POST",
    json: await signedPaymentBody(buyer, await enrichedLine(USDC, amount, seller)),
  });
  expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
}

/** Lamports the fee payer lost in one transaction, per the chain's record of it. */
async function feePayerSpentIn(signature: string): Promise<bigint> {
  const tx = await chainRpc<any>("getTransaction", [
    signature,
    { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" },
  ]);
  const index = (tx.transaction.message.accountKeys as string[]).indexOf(TEST_FEE_PAYER.address);
  return index < 0 ? 0n : BigInt(tx.meta.preBalances[index]) - BigInt(tx.meta.postBalances[index]);
}

/** Every transaction that ever touched `account` and cost the fee payer something: signature → lamports. */
async function feePayerSpendingOn(account: Address): Promise<Map<string, bigint>> {
  const list = await chainRpc<{ signature: string }[]>("getSignaturesForAddress", [account, { limit: 1000 }]);
  const spent = new Map<string, bigint>();
  for (const { signature } of list) {
    const lamports = await feePayerSpentIn(signature);
    if (lamports !== 0n) spent.set(signature, lamports);
  }
  return spent;
}

describe("sweeps: no rent farming", () => {
  let helper: KeyPairSigner;
  beforeAll(async () => {
    helper = await fundedBuyer(1);
    // The operator's fee token account exists, so a sweep's only possible cost is its network fee.
    await createUsdcAccount(await feeDestination(), helper);
  }, 60_000);

  it(
    "the create-close loop of the issue earns the seller nothing and costs the fee payer at most one network fee " +
      "per sweep",
    async () => {
      const seller = await sovereignUsdcSeller();
      const sellerAta = await usdcAccountOf(seller.address);
      const sellerLamportsBefore = await lamportsOf(seller.address);
      const sweepSignatures: string[] = [];

      for (let round = 0; round < 2; round++) {
        await pay(seller.address, "1000000"); // above the 0.10 USDC threshold
        // 1. No token account: the rail is skipped with its reason, nothing is signed, nothing is spent.
        const skipped = await sweepNow();
        const item = skipped.items.find((i: any) => i.wallet === seller.address);
        expect(item).toMatchObject({
          status: "skipped",
          action: "seller_token_account_missing",
          signature: null,
          lamportsSpent: "0",
          splMint: USDC,
        });
        expect(item.error).toContain(sellerAta);
        expect(skipped.skippedSellerTokenAccountMissing).toBeGreaterThanOrEqual(1);
        expect(
          await chainRpc<any>("getAccountInfo", [sellerAta, { encoding: "base64" }]).then((r) => r.value),
        ).toBeNull();

        // The seller sees why in the vault snapshot and in its preview.
        const snapshot = await call(`/vault-snapshot?wallet=${seller.address}&spl_mint=${USDC}`);
        expect(snapshot.body).toMatchObject({
          sellerSplAta: sellerAta,
          sellerSplAtaExists: false,
          sweepBlockedReason: "seller_token_account_missing",
        });
        const preview = await call(`/sellers/${seller.address}/preview`);
        expect(preview.body.lifecycle).toMatchObject({
          nextStep: "create_token_account",
          blockedReason: "seller_token_account_missing",
          sellerTokenAccount: sellerAta,
        });

        // 2. The seller creates the account itself (its own rent): the sweep pays out and costs one network fee.
        await createUsdcAccount(seller.address, seller);
        const swept = (await sweepNow()).items.find((i: any) => i.wallet === seller.address);
        expect(swept).toMatchObject({
          status: "ok",
          action: "sweep_submitted",
          confirmed: true,
          lamportsSpent: "5000",
        });
        expect(await feePayerSpentIn(swept.signature)).toBe(5_000n);
        sweepSignatures.push(swept.signature);
        expect(await tokenBalance(sellerAta)).toBeGreaterThan(0n);

        // 3. It empties and closes the account to take the rent back, and tries again.
        await drainAndCloseUsdcAccount(seller, await usdcAccountOf(helper.address));
      }

      // Over the whole loop the fee payer paid for nothing on the seller's token account but the two sweeps' fees…
      const spent = await feePayerSpendingOn(sellerAta);
      expect([...spent.keys()].sort()).toEqual([...sweepSignatures].sort());
      expect([...spent.values()]).toEqual([5_000n, 5_000n]);
      // …and the seller got no lamports out of it (it paid its own rent back to itself, and its own fees).
      expect(await lamportsOf(seller.address)).toBeLessThanOrEqual(sellerLamportsBefore);
    },
  );
});

describe("sweeps: an already-processed answer", () => {
  it("is a sent transaction: its status is read and the landed sweep recorded as ok, not failed", async () => {
    const seller = await sovereignUsdcSeller();
    await createUsdcAccount(seller.address, seller);
    await pay(seller.address, "1000000");
    // An RPC front that delivers each send twice: the transaction lands once, the Worker hears AlreadyProcessed.
    const scenario = `already-processed-${crypto.randomUUID()}`;
    const proxy = inject("rpcFaultProxyUrl");
    await fetch(`${proxy}/control/${scenario}`, {
      method: "POST",
      body: JSON.stringify({ duplicateSend: true } satisfies FaultMode),
    });

    const response = await callWithEnv({ SOLANA_RPC_URL: `${proxy}/s/${scenario}` }, "/sweep", {
      method: "POST",
      headers: { ...BEARER, "Content-Type": "application/json" },
      body: JSON.stringify({ cooldownSeconds: 0 }),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const item = response.body.items.find((i: any) => i.wallet === seller.address);
    expect(item).toMatchObject({
      status: "ok",
      action: "sweep_submitted",
      confirmed: true,
      lamportsSpent: "5000",
      error: expect.stringMatching(/already processed/),
    });
    expect(await feePayerSpentIn(item.signature)).toBe(5_000n);
    expect(await tokenBalance(await usdcAccountOf(seller.address))).toBeGreaterThan(0n);
    const row = await env.DB.prepare(
      "SELECT last_outcome, last_signature FROM sweep_state WHERE wallet_pubkey = ? AND rail = ?",
    )
      .bind(seller.address, USDC)
      .first();
    expect(row).toEqual({ last_outcome: "ok", last_signature: item.signature });
  });
});
