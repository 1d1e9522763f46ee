/**
 * The first two attacks of "exact on mainnet out of the box", replayed end to end against the Worker as `npm start`
 * serves it (workerd, the production bundle, local D1 and the ledger objects) on a local chain of its own:
 *
 * 1. round trips between one's own wallets (wallet-form `exact`, 0.01 USDC, a 1,000-lamport priority fee — the
 *    facilitator's advertised recommended price here) until the strangers' pool is spent: the fee payer loses exactly
 *    what was booked, and no more than the pool's cap;
 * 2. with that pool spent, the operator's jobs and a proven seller's buyers go on: a sweep of the proven seller's
 *    vault and an escrow keeper's refund land, and an honest buyer of that seller is paid at the recommended price,
 *    while a stranger's payment is refused with the pool's reason.
 *
 * Every transaction comes from this facilitator's own builders, signed as a client would; the caps are scaled down
 * with variables so that ten payments reach them.
 */
import {
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../../demo/chain-rpc";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { type DirectorySeller, startDirectorySeller } from "../../../support/node/directory-seller";
import { registerListedResource } from "../../../support/node/listed-resource";
import { withLocalWorker } from "../../../support/node/local-worker";

const NETWORK = CLUSTERS.devnet.network;
const USDC = CLUSTERS.devnet.usdcMint;
const SOL = "11111111111111111111111111111111";
/** 50,000 µL × the builder's 20,000 units: a 1,000-lamport priority fee on the 10,000-lamport base fee. */
const FEE = 11_000n;
const STRANGERS_POOL = 10n * FEE;
const OPERATOR = { Authorization: "Bearer run-worker-operator-token" };
const ESCROW_TTL_SECONDS = 600;

const local = withLocalWorker({
  feePayerLamports: 10_000_000_000,
  vars: {
    SVC_RECOMMENDED_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: "50000",
    SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS: STRANGERS_POOL.toString(),
  },
});
let directory: DirectorySeller;
beforeAll(async () => {
  directory = await startDirectorySeller();
}, 60_000);
afterAll(async () => directory?.close(), 30_000);

async function call(path: string, json: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(local.api + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function wallet(lamports: number, usdc = 0n): Promise<KeyPairSigner> {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(local.chain.url, signer.address, lamports, usdc > 0n ? usdc : undefined);
  return signer;
}

async function signed(base64: string, signer: KeyPairSigner): Promise<string> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([signer.keyPair], tx));
}

/** `buyer` pays `line` through this facilitator's builder, signed as the buyer's client signs. */
async function pay(buyer: KeyPairSigner, line: Record<string, unknown>) {
  const built = await call("/build-exact-payment-tx", { payer: buyer.address, accepted: line });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  const body = built.body.verifyBodyTemplate;
  body.paymentPayload.payload.transaction = await signed(built.body.transaction, buyer);
  return call("/settle", body);
}

function walletLine(payTo: Address): Record<string, unknown> {
  return {
    scheme: "exact",
    network: NETWORK,
    asset: USDC,
    amount: "10000",
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: local.feePayer.address },
  };
}

const feePayerLamports = async () =>
  BigInt(
    (
      await chainRpc<{ value: number }>(local.chain.url, "getBalance", [
        local.feePayer.address,
        { commitment: "confirmed" },
      ])
    ).value,
  );
const usdcOf = async (owner: Address) => {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return (await tokenAccountBalance(local.chain.url, ata)) ?? 0n;
};
const health = async () => (await (await fetch(`${local.api}/health`)).json()) as any;

describe("a stranger's attacks on the fee payer, bounded", () => {
  let provenSeller: KeyPairSigner;
  let escrowPayment: string;

  it("before the attack: a proven seller and an escrow payment due for the keeper later", async () => {
    provenSeller = (
      await registerListedResource({
        api: local.api,
        chainUrl: local.chain.url,
        seller: directory,
        path: "/paid",
        resource: { httpMethod: "GET", title: "Paid", scheme: "exact" },
      })
    ).wallet;
    // A buyer-paid escrow funding (the fee payer pays nothing for it); its refund after expiry is the keeper's job.
    const escrowBuyer = await wallet(100_000_000, 5_000_000n);
    const line = await call("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/slow" },
      accepts: [
        {
          scheme: "sla-escrow",
          network: NETWORK,
          asset: USDC,
          amount: "1500000",
          payTo: (await wallet(0)).address,
          maxTimeoutSeconds: ESCROW_TTL_SECONDS,
        },
      ],
    });
    expect(line.status, JSON.stringify(line.body)).toBe(200);
    const built = await call("/build-sla-escrow-payment-tx", {
      payer: escrowBuyer.address,
      accepted: line.body.accepts[0],
      slaHash: "cd".repeat(32),
      oracleAuthority: labelledKeypair("x402-facilitator/local/oracle").address,
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    const body = built.body.verifyBodyTemplate;
    body.paymentPayload.payload.transaction = await signed(built.body.transaction, escrowBuyer);
    expect((await call("/settle", body)).body).toMatchObject({ success: true });
    escrowPayment = built.body.paymentPda;
  }, 180_000);

  it("attack 1: twenty round trips between two wallets of one's own stop at the strangers' pool; the fee payer lost " +
    "exactly what was booked, within the cap", async () => {
    const a = await wallet(1_000_000_000, 1_000_000n);
    const b = await wallet(1_000_000_000, 1_000_000n);
    const before = await feePayerLamports();
    const answers = [];
    for (let i = 0; i < 20; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      answers.push(await pay(from, walletLine(to.address)));
    }
    const settled = answers.filter((x) => x.body.success === true);
    expect(settled, JSON.stringify(answers.map((x) => x.body.errorReason ?? "ok"))).toHaveLength(10);
    for (const refused of answers.filter((x) => x.body.success !== true)) {
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ errorReason: "fee_payer_buyer_spend_per_day_exceeded", transaction: "" });
    }
    const lost = before - (await feePayerLamports());
    expect(lost).toBe(10n * FEE);
    expect(lost).toBeLessThanOrEqual(STRANGERS_POOL);
    const exposure = (await health()).feePayerExposure;
    expect(BigInt(exposure.spentLast24hLamports.byPool.buyers)).toBe(lost);
    expect(exposure.caps.buyerSpendPerDay).toMatchObject({ limit: STRANGERS_POOL.toString(), headroom: "0" });
    // The USDC went round and came back: the attack cost the attacker no tokens, and the operator no more than the
    // pool.
    expect(await usdcOf(a.address)).toBe(1_000_000n);
    expect(await usdcOf(b.address)).toBe(1_000_000n);
  }, 180_000);

  it("attack 2: with the strangers' pool spent, a stranger's payment waits (503), while a proven seller's buyer is " +
    "paid at the recommended price, its vault is swept and the escrow keeper refunds", async () => {
    const strangerSeller = await wallet(1_000_000_000, 1n);
    const honest = await wallet(2_000_000_000, 1_000_000n);
    const stranger = await pay(honest, walletLine(strangerSeller.address));
    expect(stranger.status, JSON.stringify(stranger.body)).toBe(503);
    expect(stranger.body).toMatchObject({ errorReason: "fee_payer_buyer_spend_per_day_exceeded" });

    // The proven seller's own quota: its buyer pays 0.05 SOL into its vault, at the advertised price.
    const supported = (await (await fetch(`${local.api}/supported`)).json()) as any;
    expect(supported.kinds.find((k: any) => k.scheme === "exact").extra.recommendedComputeUnitPrice).toBe("50000");
    const enriched = await call("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: `${directory.origin}/paid` },
      accepts: [
        {
          scheme: "exact",
          network: NETWORK,
          asset: SOL,
          amount: "50000000",
          payTo: provenSeller.address,
          maxTimeoutSeconds: 60,
        },
      ],
    });
    expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
    const paid = await pay(honest, enriched.body.accepts[0]);
    expect(paid.body, JSON.stringify(paid.body)).toMatchObject({ success: true });

    // The operator's jobs have their own pool: the sweep of that vault lands.
    const sweep = await call("/sweep", { cooldownSeconds: 0 }, OPERATOR);
    expect(sweep.status, JSON.stringify(sweep.body)).toBe(200);
    const swept = sweep.body.items.find((item: any) => item.wallet === provenSeller.address);
    expect(swept, JSON.stringify(sweep.body)).toMatchObject({ status: "ok", signature: expect.any(String) });

    // And the escrow keeper, once the payment expired undelivered, refunds it.
    await chainRpc(local.chain.url, "localnet_warpTime", [ESCROW_TTL_SECONDS + 5]);
    const keeper = await call("/escrow-keeper", { dryRun: false }, OPERATOR);
    expect(keeper.status, JSON.stringify(keeper.body)).toBe(200);
    expect(keeper.body.items.find((item: any) => item.paymentPda === escrowPayment)).toMatchObject({
      decision: "refund",
      outcome: "landed",
    });

    const exposure = (await health()).feePayerExposure;
    expect(BigInt(exposure.spentLast24hLamports.byPool.sellers)).toBeGreaterThan(0n);
    expect(BigInt(exposure.spentLast24hLamports.byPool.jobs)).toBeGreaterThanOrEqual(10_000n);
    expect(exposure.spentLast24hLamports.byPool.buyers).toBe(STRANGERS_POOL.toString());
  }, 240_000);
});
