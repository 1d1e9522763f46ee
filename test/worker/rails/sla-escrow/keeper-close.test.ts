import { type Address, createKeyPairSignerFromPrivateKeyBytes } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { LAMPORTS_PER_SIGNATURE } from "../../../../src/chain/network-fee";
import { decodePayment, PAYMENT_STATE } from "../../../../src/rails/sla-escrow/program/accounts";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { rpcAt } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import { client, hex32, ORACLE, TTL } from "../../../support/workerd/escrow-fixtures";
import { itemsFor, type KeeperReport, OPERATOR_AUTH } from "../../../support/workerd/escrow-keeper";
import { DEVNET, RESOURCE, signAsBuyer, USDC } from "../../../support/workerd/payment-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * The escrow keeper sends ClosePayment itself. A payment settled through /settle is refunded after expiry and, once
 * its closed_at (refund time + the seeded Config's closure delay of 86,400 s) has passed, closed by the keeper's own
 * run, its rent going back to the buyer. Both clocks the keeper reads move together: the chain's (localnet_warpTime,
 * on the warpable chain of test/global-setup.ts, so no other file's payments expire) and the Worker's own
 * (Date.now, which schedules the keeper's watch rows in D1), by the same number of seconds.
 */
const CLOSURE_DELAY_SECONDS = 86_400;
const AMOUNT = 1_500_000n;
const chainUrl = () => inject("warpableLocalnetUrl");
const rpc = <T>(method: string, params: unknown[]) => rpcAt<T>(chainUrl(), method, params);

/** The Worker on the warpable chain; its D1 is this file's. */
async function post(path: string, json: unknown, headers: Record<string, string> = {}) {
  const response = await callWithEnv({ SOLANA_RPC_URL: chainUrl() }, path, {
    method: "POST",
    body: JSON.stringify(json),
    headers: { "Content-Type": "application/json", ...client(), ...headers },
  });
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200);
  return response.body;
}

const wallClock = Date.now.bind(Date);
let clockOffsetMs = 0;
/** Moves the chain's clock and the Worker's own clock (Date.now, in this isolate) forward together. */
async function advanceBothClocks(seconds: number) {
  await rpc("localnet_warpTime", [seconds]);
  clockOffsetMs += seconds * 1000;
  vi.spyOn(Date, "now").mockImplementation(() => wallClock() + clockOffsetMs);
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function keeperItemsFor(payment: string) {
  return itemsFor((await post("/escrow-keeper", {}, OPERATOR_AUTH)) as KeeperReport, payment);
}

const lamports = async (account: string) =>
  BigInt((await rpc<{ value: number }>("getBalance", [account, { commitment: "confirmed" }])).value);
async function accountOf(account: string) {
  return (
    await rpc<{ value: { lamports: number; data: [string, string] } | null }>("getAccountInfo", [
      account,
      { encoding: "base64", commitment: "confirmed" },
    ])
  ).value;
}
async function tokenBalance(account: Address) {
  return BigInt(
    (await rpc<{ value: { amount: string } }>("getTokenAccountBalance", [account, { commitment: "confirmed" }])).value
      .amount,
  );
}

describe("escrow keeper: ClosePayment sent by the keeper", () => {
  it("refunds after expiry, waits for closed_at, then closes the payment itself: rent to the buyer, one network " +
    "fee", async () => {
    const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
    await rpc("requestAirdrop", [buyer.address, 1_000_000_000]);
    await rpc("requestTokenAirdrop", [buyer.address, Number(AMOUNT)]);
    const seller = (await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)))).address;
    const enriched = await post("/payment-required/enrich", {
      x402Version: 2,
      resource: RESOURCE,
      accepts: [
        {
          scheme: "sla-escrow",
          network: DEVNET,
          asset: USDC,
          amount: AMOUNT.toString(),
          payTo: seller,
          maxTimeoutSeconds: TTL,
        },
      ],
    });
    const built = await post("/build-sla-escrow-payment-tx", {
      payer: buyer.address,
      accepted: enriched.accepts[0],
      resource: RESOURCE,
      slaHash: hex32(),
      oracleAuthority: ORACLE,
    });
    const body = built.verifyBodyTemplate;
    body.paymentPayload.payload.transaction = await signAsBuyer(built.transaction, buyer);
    expect(await post("/settle", body)).toMatchObject({ success: true });
    const payment = built.paymentPda as string;
    const [buyerAta] = await findAssociatedTokenPda({ owner: buyer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect(await tokenBalance(buyerAta)).toBe(0n);

    // Not expired: nothing to do yet.
    expect(await keeperItemsFor(payment)).toEqual([
      expect.objectContaining({ decision: "wait", action: "none", signature: null }),
    ]);

    // Expired without delivery: the keeper refunds, and the payment waits for its closed_at.
    await advanceBothClocks(TTL + 1);
    expect(await keeperItemsFor(payment)).toEqual([
      expect.objectContaining({ action: "refund", outcome: "landed", detail: "refunded" }),
    ]);
    expect(await tokenBalance(buyerAta)).toBe(AMOUNT);
    const refunded = decodePayment(Uint8Array.from(atob((await accountOf(payment))!.data[0]), (c) => c.charCodeAt(0)));
    expect(refunded?.state).toBe(PAYMENT_STATE.REFUNDED);
    expect(await keeperItemsFor(payment)).toEqual([]); // its row is due after closed_at, by the Worker's clock

    // One second before closed_at passes (the keeper closes once now > closed_at): its row is not due yet.
    await advanceBothClocks(CLOSURE_DELAY_SECONDS - 1);
    expect(await keeperItemsFor(payment)).toEqual([]);

    // After closed_at, on both clocks: the keeper's own run sends ClosePayment, paid by the fee payer alone.
    await advanceBothClocks(2);
    const rent = BigInt((await accountOf(payment))!.lamports);
    const [buyer0, feePayer0] = [await lamports(buyer.address), await lamports(TEST_FEE_PAYER.address)];
    const closed = await keeperItemsFor(payment);
    expect(closed).toEqual([
      expect.objectContaining({ decision: "close", action: "close", outcome: "landed", detail: "closed" }),
    ]);
    expect(closed[0]!.signature).toEqual(expect.any(String));
    expect(await accountOf(payment)).toBeNull();
    expect(await lamports(buyer.address)).toBe(buyer0 + rent);
    expect(feePayer0 - (await lamports(TEST_FEE_PAYER.address))).toBe(LAMPORTS_PER_SIGNATURE);

    // Closed for good: later runs leave it alone.
    await advanceBothClocks(3_600);
    expect(await keeperItemsFor(payment)).toEqual([]);
  }, 60_000);
});
