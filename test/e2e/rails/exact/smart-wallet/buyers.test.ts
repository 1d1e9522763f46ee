/**
 * Smart-wallet buyers pay a stock seller through this facilitator: the official `@x402/hono` middleware (its own
 * wallet as payTo) and, as buyer, the official `x402Client` with a scheme client whose transfer is built by the
 * wallet's own SDK — `@swig-wallet/kit` (SignV2 of a TransferChecked signed by the swig wallet address) and
 * `@sqds/multisig` (an approved vault transaction, executed in the payment). The facilitator runs with
 * SVC_EXACT_SMART_WALLETS on and verifies them by what their simulation does. Each is settled once, and the fee payer
 * is charged exactly the landed transaction's network fee.
 * Real: the local chain with the Swig and Squads stand-ins at their real ids, the Worker under workerd (the production
 * bundle, local D1), the SDKs and x402 libraries as published. The buyer reaches the Hono seller in process; the seller
 * reaches the facilitator over HTTP.
 */
import {
  type Address,
  address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";
import { Connection } from "@solana/web3.js";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { paymentMiddleware, x402ResourceServer } from "@x402/hono";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../../../demo/chain-rpc";
import { randomKeypair } from "../../../../../scripts/lib/keypair";
import { CLUSTERS } from "../../../../../src/platform/config/networks";
import { signedTransaction } from "../../../../localnet/helpers";
import { withLocalWorker } from "../../../../support/node/local-worker";
import {
  executeInstruction,
  placeMultisig,
  proposeTransferInstructions,
} from "../../../../support/smart-wallets/squads";
import { createSwigInstruction, swigTransferInstructions } from "../../../../support/smart-wallets/swig";
import { smartWalletExactClient } from "../../../../support/smart-wallets/x402-client";

const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = address(CLUSTERS.devnet.usdcMint);
const CONTENT = { weather: "sunny" };
const PRICE_RAW = 10_000n; // $0.01

const local = withLocalWorker({ feePayerLamports: 100_000_000_000, vars: { SVC_EXACT_SMART_WALLETS: "true" } });
let sellerAta: Address;
let sellerFetch: typeof fetch;
/** The PAYMENT-SIGNATURE headers the seller received, in order. */
const paymentHeaders: string[] = [];

beforeAll(async () => {
  const seller = await createKeyPairSignerFromBytes(randomKeypair().secretKey);
  await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000, 1);
  [sellerAta] = await findAssociatedTokenPda({
    owner: seller.address,
    mint: USDC,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const app = new Hono();
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: local.api })).register(
    DEVNET,
    new ExactSvmServerScheme(),
  );
  app.use(
    paymentMiddleware(
      {
        "GET /weather": {
          accepts: { scheme: "exact", price: "$0.01", network: DEVNET, payTo: seller.address },
          description: "Weather",
        },
      },
      resourceServer,
    ),
  );
  app.get("/weather", (c) => c.json(CONTENT));
  sellerFetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const header = request.headers.get("PAYMENT-SIGNATURE");
    if (header) paymentHeaders.push(header);
    return app.fetch(request);
  }) as typeof fetch;
}, 180_000);

async function fundedSigner(): Promise<KeyPairSigner> {
  const keypair = randomKeypair();
  await fundFromFaucet(local.chain.url, keypair.address, 2_000_000_000);
  return createKeyPairSignerFromBytes(keypair.secretKey);
}

/** Sends a transaction the buyer pays itself (wallet setup), through the chain's preflight. */
async function sendOwn(payer: KeyPairSigner, instructions: Instruction[]): Promise<void> {
  const rpc = createSolanaRpc(local.chain.url);
  const { value } = await rpc.getLatestBlockhash().send();
  const tx = await signedTransaction(payer, instructions, value);
  await rpc.sendTransaction(tx.wire as never, { encoding: "base64" }).send();
}

const lamportsOf = async (account: string) =>
  BigInt((await chainRpc<{ value: number | string }>(local.chain.url, "getBalance", [account])).value);

/** Pays the seller with `client`, then checks: content served, the seller paid once, the fee payer charged the fee. */
async function payAndCheck(client: ReturnType<typeof smartWalletExactClient>) {
  const sellerBefore = (await tokenAccountBalance(local.chain.url, sellerAta)) ?? 0n;
  const feePayerBefore = await lamportsOf(local.feePayer.address);
  const response = await wrapFetchWithPayment(
    sellerFetch,
    new x402Client().register(DEVNET, client),
  )("http://seller.test/weather");
  expect(response.status, await response.clone().text()).toBe(200);
  expect(await response.json()).toEqual(CONTENT);
  expect(await tokenAccountBalance(local.chain.url, sellerAta)).toBe(sellerBefore + PRICE_RAW);

  const settlement = JSON.parse(Buffer.from(response.headers.get("PAYMENT-RESPONSE")!, "base64").toString()) as {
    success: boolean;
    transaction: Signature;
  };
  expect(settlement.success).toBe(true);
  const landed = await chainRpc<{ meta: { fee: number; err: unknown } }>(local.chain.url, "getTransaction", [
    settlement.transaction,
    { encoding: "json", maxSupportedTransactionVersion: 0 },
  ]);
  expect(landed.meta.err).toBeNull();
  // Two signatures and at most 200,000 units at 1 micro-lamport: the network fee, and nothing else.
  expect(BigInt(landed.meta.fee)).toBeLessThanOrEqual(10_000n + 1n);
  expect(feePayerBefore - (await lamportsOf(local.feePayer.address))).toBe(BigInt(landed.meta.fee));

  // Settled once: the same payment sent again is refused and moves nothing.
  const header = paymentHeaders.at(-1)!;
  const replay = await sellerFetch("http://seller.test/weather", { headers: { "PAYMENT-SIGNATURE": header } });
  expect(replay.status).toBe(402);
  expect(await tokenAccountBalance(local.chain.url, sellerAta)).toBe(sellerBefore + PRICE_RAW);
}

describe("smart-wallet buyers and the official seller middleware", () => {
  it("advertises smart-wallet support in /supported", async () => {
    const supported = (await (await fetch(`${local.api}/supported`)).json()) as {
      kinds: { scheme: string; extra: { features?: { smartWalletSupported?: boolean } } }[];
    };
    expect(supported.kinds.find((k) => k.scheme === "exact")?.extra.features).toEqual({ smartWalletSupported: true });
  });

  it("a Swig wallet pays with @swig-wallet/kit's SignV2, settled once", async () => {
    const owner = await fundedSigner();
    const { instruction, wallet } = await createSwigInstruction(owner.address, owner.address);
    await sendOwn(owner, [instruction]);
    await fundFromFaucet(local.chain.url, wallet.walletAddress, 0, 1_000_000);
    const [source] = await findAssociatedTokenPda({
      owner: wallet.walletAddress,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const rpc = createSolanaRpc(local.chain.url);
    await payAndCheck(
      smartWalletExactClient({
        rpcUrl: local.chain.url,
        walletInstructions: async (transfer) => {
          const account = await rpc.getAccountInfo(wallet.swig, { encoding: "base64" }).send();
          const swig = wallet.load(Buffer.from(account.value!.data[0], "base64"));
          return swigTransferInstructions(swig, owner, { ...transfer, source });
        },
      }),
    );
  }, 180_000);

  it("a Squads multisig vault pays by executing an approved vault transaction (@sqds/multisig), settled " +
    "once", async () => {
    const member = await fundedSigner();
    const rpcCall = (method: string, params: unknown[]) => chainRpc(local.chain.url, method, params);
    const vault = await placeMultisig(rpcCall, [member.address], 1);
    await fundFromFaucet(local.chain.url, vault.vault, 0, 1_000_000);
    const [source] = await findAssociatedTokenPda({
      owner: vault.vault,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const connection = new Connection(local.chain.url, "confirmed");
    await payAndCheck(
      smartWalletExactClient({
        rpcUrl: local.chain.url,
        walletInstructions: async (transfer) => {
          // The members' part, before the payment: create, propose and approve (the member pays for it).
          const proposal = await proposeTransferInstructions(connection, vault, member, { ...transfer, source });
          await sendOwn(member, proposal.instructions);
          return [await executeInstruction(connection, vault, proposal.transactionIndex, member)];
        },
      }),
    );
  }, 180_000);
});
