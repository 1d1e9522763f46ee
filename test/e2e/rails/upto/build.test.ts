/**
 * Issue 24 §4: POST /build-upto-deposit-tx gives a buyer without a Solana SDK the deposit the official upto client
 * would have built. The Worker (as npm start serves it) builds it on the local chain; the buyer only signs the
 * transaction at the index it is told and sends the payload; the OFFICIAL upto facilitator (@x402/svm/upto/facilitator,
 * keyed with this Worker's fee payer so `extra.feePayer` is the same key) verifies it with its own canonical-open
 * check, opens the channel, and claims against it with a seller voucher. Balances are read from the chain to the unit.
 */

import { base58 } from "@scure/base";
import {
  type Address,
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { UptoSvmScheme as UptoSvmFacilitatorScheme } from "@x402/svm/upto/facilitator";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../../demo/chain-rpc";
import { type RunningLocalnet, startLocalnet } from "../../../../localnet/server";
import { randomKeypair } from "../../../../scripts/lib/keypair";
import { type RunningWorker, startWorker } from "../../../../scripts/lib/run-worker";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { CHANNEL_STATUS, decodeChannel } from "../../../../src/rails/upto/program/accounts";
import { UptoDepositBuildResponseSchema } from "../../../../src/rails/upto/routes/responses";
import { loadOfficialPaymentChannels } from "../../../programs/official-payment-channels";

const DEVNET = CLUSTERS.devnet.network;
const USDC = CLUSTERS.devnet.usdcMint as Address;
const BUYER_USDC = 3_000_000n;

let chain: RunningLocalnet;
let worker: RunningWorker;
let api: string;
let official: UptoSvmFacilitatorScheme;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, quiet: true });
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 100_000_000_000);
  worker = await startWorker({ rpcUrl: chain.url, feePayerSecretKeyBase58: feePayer.secretKeyBase58 });
  api = `${worker.url}/api/v1/facilitator`;
  const signer = await createKeyPairSignerFromBytes(base58.decode(feePayer.secretKeyBase58));
  official = new UptoSvmFacilitatorScheme(
    toFacilitatorSvmSigner(signer as never, { defaultRpcUrl: chain.url }) as never,
  );
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await chain?.close();
}, 60_000);

async function usdcOf(owner: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return (await tokenAccountBalance(chain.url, ata)) ?? 0n;
}

async function fundedBuyer(): Promise<KeyPairSigner> {
  const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(chain.url, buyer.address, 0, BUYER_USDC); // no SOL: the facilitator pays fees and rent
  return buyer;
}

async function build(body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api}/build-upto-deposit-tx`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** What a buyer does with the answer: sign at the index given, put the result where the notes say. */
async function signPayload(built: any, buyer: KeyPairSigner) {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction));
  const signed = await partiallySignTransaction([buyer.keyPair], transaction);
  expect(Object.keys(signed.signatures)[built.payerSignatureIndex]).toBe(buyer.address);
  const paymentPayload = structuredClone(built.verifyBodyTemplate.paymentPayload);
  paymentPayload.payload.openTransaction = getBase64EncodedWireTransaction(signed);
  return paymentPayload;
}

describe("POST /build-upto-deposit-tx", () => {
  it("builds a deposit the official upto facilitator verifies, opens and claims against, to the unit", async () => {
    const buyer = await fundedBuyer();
    const seller = (await generateKeyPairSigner()).address;
    await fundFromFaucet(chain.url, seller, 0, 1);
    const voucherKey = await generateKeyPairSigner();
    const feePayer = ((await (await fetch(`${api}/supported`)).json()) as { signers: Record<string, string[]> })
      .signers[DEVNET]![0]!;
    const ceiling = 1_500_000n;
    const accepted = {
      scheme: "upto",
      network: DEVNET,
      asset: USDC,
      amount: ceiling.toString(),
      payTo: seller,
      maxTimeoutSeconds: 120,
      extra: { feePayer, receiverAuthorizer: voucherKey.address, withdrawDelay: 900 },
    };

    const built = await build({ payer: buyer.address, accepted, resource: { url: "https://seller.example/generate" } });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    v.parse(UptoDepositBuildResponseSchema, built.body); // the shape /openapi.json documents
    expect(built.body).toMatchObject({
      feePayer,
      payer: buyer.address,
      payerSignatureIndex: 1,
      deposit: ceiling.toString(),
      gracePeriodSeconds: 900,
      assetKind: "spl-token",
    });
    expect(built.body.signerPubkeys).toEqual([feePayer, buyer.address]);
    expect(built.body.verifyBodyTemplate.paymentPayload.payload).toMatchObject({
      channelId: built.body.channelId,
      from: buyer.address,
      deposit: ceiling.toString(),
      maxAmount: ceiling.toString(),
      authorizedSigner: voucherKey.address,
      openSlot: built.body.openSlot,
    });
    const paymentPayload = await signPayload(built.body, buyer);
    const requirements = built.body.verifyBodyTemplate.paymentRequirements;

    expect(await official.verify(paymentPayload, requirements)).toMatchObject({ isValid: true, payer: buyer.address });
    const deposited = await official.settle(paymentPayload, requirements);
    expect(deposited, JSON.stringify(deposited)).toMatchObject({ success: true });
    expect(await usdcOf(buyer.address)).toBe(BUYER_USDC - ceiling);
    const info = await chainRpc<{ value: { data: [string, string] } }>(chain.url, "getAccountInfo", [
      built.body.channelId,
      { encoding: "base64", commitment: "confirmed" },
    ]);
    expect(decodeChannel(Buffer.from(info.value.data[0], "base64"))).toMatchObject({
      status: CHANNEL_STATUS.OPEN,
      deposit: ceiling,
      payer: buyer.address,
      payee: feePayer,
      rentPayer: feePayer,
      authorizedSigner: voucherKey.address,
      gracePeriod: 900,
    });

    // The seller used 700,001 of it: its voucher, the official claim.
    const used = 700_001n;
    const voucherSignature = await (await loadOfficialPaymentChannels()).signVoucher(voucherKey, {
      channelId: paymentPayload.payload.channelId,
      cumulativeAmount: used,
      expiresAt: BigInt(paymentPayload.payload.expiresAt),
    });
    const claimed = await official.settle(
      { ...paymentPayload, payload: { ...paymentPayload.payload, type: "claim", voucherSignature } },
      { ...requirements, amount: used.toString() },
    );
    expect(claimed, JSON.stringify(claimed)).toMatchObject({ success: true, amount: used.toString() });
    expect(await usdcOf(seller)).toBe(1n + used);
    expect(await usdcOf(buyer.address)).toBe(BUYER_USDC - used);
  });

  it(
    "takes the official server's per-request hints (recentBlockhash, recentSlot, memo) as the official client " +
      "does",
    async () => {
      const buyer = await fundedBuyer();
      const seller = (await generateKeyPairSigner()).address;
      await fundFromFaucet(chain.url, seller, 0, 1);
      const voucherKey = await generateKeyPairSigner();
      const feePayer = ((await (await fetch(`${api}/supported`)).json()) as { signers: Record<string, string[]> })
        .signers[DEVNET]![0]!;
      const latest = await chainRpc<{
        context: { slot: number };
        value: { blockhash: string; lastValidBlockHeight: number };
      }>(chain.url, "getLatestBlockhash", [{ commitment: "confirmed" }]);
      const accepted = {
        scheme: "upto",
        network: DEVNET,
        asset: USDC,
        amount: "10000",
        payTo: seller,
        maxTimeoutSeconds: 60,
        extra: {
          feePayer,
          receiverAuthorizer: voucherKey.address,
          withdrawDelay: 900,
          tokenProgram: TOKEN_PROGRAM_ADDRESS,
          recentBlockhash: latest.value.blockhash,
          lastValidBlockHeight: String(latest.value.lastValidBlockHeight),
          recentSlot: String(latest.context.slot),
          memo: "order-42",
        },
      };
      const built = await build({ payer: buyer.address, accepted });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      expect(built.body.recentBlockhash).toBe(latest.value.blockhash);
      expect(built.body.openSlot).toBe(String(latest.context.slot));
      const paymentPayload = await signPayload(built.body, buyer);
      // The official verifier checks the open slot against extra.recentSlot and the memo against extra.memo.
      expect(await official.verify(paymentPayload, built.body.verifyBodyTemplate.paymentRequirements)).toMatchObject({
        isValid: true,
      });
    },
  );

  it(
    "refuses what would fail: another facilitator's fee payer, no voucher key, a bad grace period, native SOL, " +
      "short funds, a payTo no claim could pay",
    async () => {
      const buyer = await fundedBuyer();
      const seller = (await generateKeyPairSigner()).address;
      await fundFromFaucet(chain.url, seller, 0, 1);
      const voucherKey = (await generateKeyPairSigner()).address;
      const feePayer = ((await (await fetch(`${api}/supported`)).json()) as { signers: Record<string, string[]> })
        .signers[DEVNET]![0]!;
      const line = {
        scheme: "upto",
        network: DEVNET,
        asset: USDC,
        amount: "1000",
        payTo: seller,
        maxTimeoutSeconds: 60,
        extra: { feePayer, receiverAuthorizer: voucherKey, withdrawDelay: 900 },
      };
      const cases: [string, unknown, RegExp][] = [
        ["exact line", { ...line, scheme: "exact" }, /accepted\.scheme/],
        ["other fee payer", { ...line, extra: { ...line.extra, feePayer: seller } }, /accepted\.extra\.feePayer/],
        ["no voucher key", { ...line, extra: { feePayer, withdrawDelay: 900 } }, /receiverAuthorizer/],
        ["no fee payer", { ...line, extra: { receiverAuthorizer: voucherKey, withdrawDelay: 900 } }, /extra\.feePayer/],
        [
          "grace period above the bounds in /supported",
          { ...line, extra: { ...line.extra, withdrawDelay: 10_000_000 } },
          /withdrawDelay/,
        ],
        ["longer than a channel may live here", { ...line, maxTimeoutSeconds: 1_000_000 }, /maxTimeoutSeconds/],
        ["zero grace period", { ...line, extra: { ...line.extra, withdrawDelay: 0 } }, /withdrawDelay/],
        ["native SOL", { ...line, asset: "11111111111111111111111111111111" }, /native SOL/],
        ["more than the buyer holds", { ...line, amount: (BUYER_USDC + 1n).toString() }, /insufficient|short|balance/i],
        ["other network", { ...line, network: CLUSTERS.mainnet.network }, /accepted\.network/],
        [
          "a payTo without a USDC account",
          { ...line, amount: "10000", payTo: (await generateKeyPairSigner()).address }, // at the minimum ceiling
          /accepted\.payTo: payTo's token account \w+ for \w+ does not exist/,
        ],
      ];
      for (const [label, accepted, reason] of cases) {
        const answer = await build({ payer: buyer.address, accepted });
        expect(answer.status, label).toBe(400);
        expect(JSON.stringify(answer.body), label).toMatch(reason);
      }
    },
  );
});
