/**
 * fund → no delivery → refunded by the keeper after expiry, on a chain of its own: this test moves the chain clock
 * forward (localnet_warpTime), which would disturb other files' escrow payments on the shared test chain. Real
 * Worker under wrangler, real local chain with the stand-in SLA-Escrow program, every transaction from our builders.
 */

import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../../demo/chain-rpc";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { withLocalWorker } from "../../../support/node/local-worker";

const USDC = CLUSTERS.devnet.usdcMint;
const TTL_SECONDS = 600; // the shortest ttl the rail accepts: the 300 s delivery cutoff + the 300 s delivery budget
const AMOUNT = 1_500_000n;
const local = withLocalWorker({ feePayerLamports: 10_000_000_000 });

async function post(path: string, json: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(local.api + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(json),
  });
  const body = await response.json();
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  return body;
}

describe("escrow keeper on the chain clock", () => {
  it("refunds an undelivered payment as soon as it expired (protocol §7), not before", async () => {
    const buyer = await generateKeyPairSigner();
    await fundFromFaucet(local.chain.url, buyer.address, 100_000_000, 5_000_000n);
    const seller = (await generateKeyPairSigner()).address;
    const enriched = await post("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/slow" },
      accepts: [
        {
          scheme: "sla-escrow",
          network: CLUSTERS.devnet.network,
          asset: USDC,
          amount: AMOUNT.toString(),
          payTo: seller,
          maxTimeoutSeconds: TTL_SECONDS,
        },
      ],
    });
    const built = await post("/build-sla-escrow-payment-tx", {
      payer: buyer.address,
      accepted: enriched.accepts[0],
      slaHash: "cd".repeat(32),
      oracleAuthority: labelledKeypair("x402-facilitator/local/oracle").address,
    });
    const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction));
    const body = built.verifyBodyTemplate;
    body.paymentPayload.payload.transaction = getBase64EncodedWireTransaction(
      await partiallySignTransaction([buyer.keyPair], unsigned),
    );
    expect((await post("/settle", body)).success).toBe(true);
    const [buyerAta] = await findAssociatedTokenPda({
      owner: buyer.address,
      mint: USDC as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const afterFunding = (await tokenAccountBalance(local.chain.url, buyerAta))!;

    const keeper = async (dryRun: boolean) => {
      const report = await post("/escrow-keeper", { dryRun }, { Authorization: "Bearer run-worker-operator-token" });
      return (report.items as any[]).filter((item) => item.paymentPda === built.paymentPda);
    };
    // Not expired yet (now ≤ expires_at): a third party may not cancel, so the keeper waits.
    await chainRpc(local.chain.url, "localnet_warpTime", [TTL_SECONDS - 5]);
    expect(await keeper(true)).toEqual([
      expect.objectContaining({ decision: "wait", action: "none", signature: null }),
    ]);

    // Expired without delivery: anyone may refund at once; the refund cooldown (the buyer's own pre-outcome
    // cancellation, 3,600 s in the seeded Config) does not delay it. Refunded in full (no verdict, no tip), once.
    await chainRpc(local.chain.url, "localnet_warpTime", [10]);
    expect(await keeper(false)).toEqual([
      expect.objectContaining({ decision: "refund", outcome: "landed", detail: "refunded" }),
    ]);
    expect(await tokenAccountBalance(local.chain.url, buyerAta)).toBe(afterFunding + AMOUNT);
    expect(await keeper(true)).toEqual([]);
  }, 120_000);
});
