/**
 * What can differ between the simulation a smart-wallet payment is verified by and its execution
 * (docs/money-rules.md "Smart-wallet payments"), on a real chain: the facilitator never reports a payment paid that
 * did not pay the seller, and a payment whose wallet changed after /verify is refused at /settle before anything lands.
 * Real: the local chain (Swig stand-in), the Worker under workerd, @swig-wallet/kit. Between the Worker and the chain
 * runs test/support/node/rpc-fault-proxy.ts: it stands for what a real cluster can do that the local chain, which
 * simulates and executes in one step, cannot — a simulation that shows another outcome than the execution, and a
 * send whose preflight saw older state. Also here: a buyer whose payments keep failing meets the per-buyer failure cap,
 * and what one payment costs in RPC calls.
 */
import {
  type Address,
  address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../../../demo/chain-rpc";
import { type RunningLocalnet, startLocalnet } from "../../../../../localnet/server";
import { type LocalKeypair, randomKeypair } from "../../../../../scripts/lib/keypair";
import { type RunningWorker, startWorker } from "../../../../../scripts/lib/run-worker";
import { CLUSTERS } from "../../../../../src/platform/config/networks";
import { signedTransaction } from "../../../../localnet/helpers";
import { type FaultMode, startRpcFaultProxy } from "../../../../support/node/rpc-fault-proxy";
import {
  createSwigInstruction,
  type SwigWallet,
  swigTransferInstructions,
} from "../../../../support/smart-wallets/swig";
import { type SmartWalletTransfer, smartWalletExactClient } from "../../../../support/smart-wallets/x402-client";

const USDC = address(CLUSTERS.devnet.usdcMint);
const PRICE_RAW = 10_000n;
/** The per-buyer cap on payments that failed at the fee payer's cost (each test's buyer is its own wallet). */
const FAILURES_PER_BUYER = 2;

let chain: RunningLocalnet;
let proxy: Awaited<ReturnType<typeof startRpcFaultProxy>>;
let worker: RunningWorker;
let feePayer: LocalKeypair;
let api: string;
let seller: Address;
let sellerAta: Address;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, quiet: true });
  proxy = await startRpcFaultProxy(chain.url);
  feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 100_000_000_000);
  worker = await startWorker({
    rpcUrl: `${proxy.url}/s/smart`,
    feePayerSecretKeyBase58: feePayer.secretKeyBase58,
    vars: {
      SVC_EXACT_SMART_WALLETS: "true",
      SVC_SETTLE_CONFIRMATION: "poll",
      SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY: String(FAILURES_PER_BUYER),
    },
  });
  api = `${worker.url}/api/v1/facilitator`;
  seller = randomKeypair().address as Address;
  await fundFromFaucet(chain.url, seller, 1_000_000_000, 1);
  [sellerAta] = await findAssociatedTokenPda({ owner: seller, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
}, 480_000);
afterAll(async () => {
  await worker?.stop();
  await proxy?.close();
  await chain?.close();
}, 60_000);

const setMode = (mode: FaultMode) =>
  fetch(`${proxy.url}/control/smart`, { method: "POST", body: JSON.stringify(mode) }).then((r) => r.text());
const lamportsOf = async (account: string) =>
  BigInt((await chainRpc<{ value: number | string }>(chain.url, "getBalance", [account])).value);
/** The JSON-RPC calls the Worker made while `run` ran (the proxy counts them by method). */
async function rpcCallsOf(run: () => Promise<unknown>): Promise<Record<string, number>> {
  const counted = async () => (await (await fetch(`${proxy.url}/control/smart`)).json()) as Record<string, number>;
  const before = await counted();
  await run();
  const made: Record<string, number> = {};
  for (const [method, count] of Object.entries(await counted())) {
    if (count > (before[method] ?? 0)) made[method] = count - (before[method] ?? 0);
  }
  return made;
}
const balanceOf = async (account: string) => (await tokenAccountBalance(chain.url, account)) ?? 0n;

async function sendOwn(payer: KeyPairSigner, instructions: Instruction[]): Promise<void> {
  const rpc = createSolanaRpc(chain.url);
  const { value } = await rpc.getLatestBlockhash().send();
  const tx = await signedTransaction(payer, instructions, value);
  await rpc.sendTransaction(tx.wire as never, { encoding: "base64" }).send();
}

/** A Swig wallet holding 1 USDC, its owner key and the wallet's token account. */
async function swigBuyer() {
  const owner = await createKeyPairSignerFromBytes(randomKeypair().secretKey);
  await fundFromFaucet(chain.url, owner.address, 2_000_000_000);
  const { instruction, wallet } = await createSwigInstruction(owner.address, owner.address);
  await sendOwn(owner, [instruction]);
  await fundFromFaucet(chain.url, wallet.walletAddress, 0, 1_000_000);
  const [source] = await findAssociatedTokenPda({
    owner: wallet.walletAddress,
    mint: USDC,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return { owner, wallet, source };
}

async function loadSwig(wallet: SwigWallet) {
  const account = await createSolanaRpc(chain.url).getAccountInfo(wallet.swig, { encoding: "base64" }).send();
  return wallet.load(Buffer.from(account.value!.data[0], "base64"));
}

/** The /verify and /settle body of a payment whose wallet instructions `pay` builds. */
async function paymentBody(pay: (transfer: SmartWalletTransfer) => Promise<Instruction[]>) {
  const requirements = {
    scheme: "exact",
    network: CLUSTERS.devnet.network,
    asset: USDC,
    amount: PRICE_RAW.toString(),
    payTo: seller,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  };
  const client = smartWalletExactClient({ rpcUrl: chain.url, walletInstructions: pay });
  const { payload } = await client.createPaymentPayload(2, requirements as never);
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload },
    paymentRequirements: requirements,
  };
}

const post = async (path: string, body: unknown) =>
  (await (
    await fetch(`${api}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    })
  ).json()) as Record<string, unknown>;

describe("a smart-wallet payment that executes differently from its simulation", () => {
  it("is never reported paid: settle reads the landed transaction and finds the seller unpaid", async () => {
    const { owner, wallet, source } = await swigBuyer();
    // The wallet pays an account of the buyer's own; the simulation the facilitator reads shows the seller paid.
    const decoy = randomKeypair().address as Address;
    await fundFromFaucet(chain.url, decoy, 1_000_000_000, 1);
    const [decoyAta] = await findAssociatedTokenPda({ owner: decoy, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const body = await paymentBody(async (transfer) =>
      swigTransferInstructions(await loadSwig(wallet), owner, { ...transfer, source, destination: decoyAta }),
    );
    await setMode({ simulationShows: { of: decoyAta, instead: sellerAta } });
    try {
      const verified = await post("/verify", body);
      expect(verified.isValid, JSON.stringify(verified)).toBe(true);
      const sellerBefore = await balanceOf(sellerAta);
      const settled = await post("/settle", body);
      expect(settled.success).toBe(false);
      expect(settled.errorReason).toBe("post_settlement_transfer_not_confirmed");
      expect(typeof settled.transaction).toBe("string"); // it landed: the signature is public
      expect(await balanceOf(sellerAta)).toBe(sellerBefore);
      expect(await balanceOf(decoyAta)).toBe(1n + PRICE_RAW);
      // Never paid later either: a repeat (its simulation finds the transaction processed) hears the stored failure.
      const again = await post("/settle", body);
      expect(again.success).toBe(false);
      expect(again.errorReason).toBe("post_settlement_transfer_not_confirmed");
      expect(again.transaction).toBe(settled.transaction);
      expect(await balanceOf(sellerAta)).toBe(sellerBefore);
    } finally {
      await setMode({});
    }
  }, 120_000);
});

describe("a smart-wallet buyer whose payments keep failing at the fee payer's cost", () => {
  it("is refused once the per-buyer failure cap is reached: the fee payer loses exactly the booked fees, no " +
    "more", async () => {
    const { owner, wallet, source } = await swigBuyer();
    const decoy = randomKeypair().address as Address;
    await fundFromFaucet(chain.url, decoy, 1_000_000_000, 1);
    const [decoyAta] = await findAssociatedTokenPda({ owner: decoy, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const payDecoy = () =>
      paymentBody(async (transfer) =>
        swigTransferInstructions(await loadSwig(wallet), owner, { ...transfer, source, destination: decoyAta }),
      );
    const feePayerBefore = await lamportsOf(feePayer.address);
    let chargedFees = 0n;
    await setMode({ simulationShows: { of: decoyAta, instead: sellerAta } });
    try {
      for (let failure = 0; failure < FAILURES_PER_BUYER; failure++) {
        const settled = await post("/settle", await payDecoy());
        expect(settled.errorReason, JSON.stringify(settled)).toBe("post_settlement_transfer_not_confirmed");
        const landed = await chainRpc<{ meta: { fee: number } }>(chain.url, "getTransaction", [
          settled.transaction,
          { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ]);
        chargedFees += BigInt(landed.meta.fee);
      }
      // Every lamport the failures cost is the network fee booked before each send, no more.
      expect(await lamportsOf(feePayer.address)).toBe(feePayerBefore - chargedFees);
      // The next payment of the same wallet is refused before anything is signed or sent.
      const refused = await post("/settle", await payDecoy());
      expect(refused.success).toBe(false);
      expect(refused.errorReason, JSON.stringify(refused)).toBe("fee_payer_failures_per_payer_exceeded");
      expect(refused.transaction ?? "").toBe("");
      expect(await lamportsOf(feePayer.address)).toBe(feePayerBefore - chargedFees);
    } finally {
      await setMode({});
    }
  }, 120_000);
});

describe("what a smart-wallet payment costs in RPC calls (warm)", () => {
  it("/verify: the simulation; /settle: the simulation, the send, the confirmation polls and one landed-transaction " +
    "read", async () => {
    const { owner, wallet, source } = await swigBuyer();
    const pay = () =>
      paymentBody(async (transfer) => swigTransferInstructions(await loadSwig(wallet), owner, { ...transfer, source }));
    // The first payment warms the isolate up (the mint is read once and kept).
    const warmUp = await pay();
    expect((await post("/verify", warmUp)).isValid).toBe(true);
    expect((await post("/settle", warmUp)).success).toBe(true);
    const body = await pay();
    const verify = await rpcCallsOf(async () => expect((await post("/verify", body)).isValid).toBe(true));
    expect(verify).toEqual({ simulateTransaction: 1 });
    const settle = await rpcCallsOf(async () => expect((await post("/settle", body)).success).toBe(true));
    // SVC_SETTLE_CONFIRMATION=poll: how many status reads depends on when the slot lands; every other call is exact.
    const { getSignatureStatuses: polls, ...exact } = settle;
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(exact).toEqual({ simulateTransaction: 1, sendTransaction: 1, getTransaction: 1 });
  }, 120_000);
});

describe("a smart-wallet payment whose landed transaction the node could not show yet", () => {
  it("answers pending, then the repeat reads it and reports it paid once", async () => {
    const { owner, wallet, source } = await swigBuyer();
    const body = await paymentBody(async (transfer) =>
      swigTransferInstructions(await loadSwig(wallet), owner, { ...transfer, source }),
    );
    const sellerBefore = await balanceOf(sellerAta);
    await setMode({ failMethods: ["getTransaction"] });
    let first: Record<string, unknown>;
    try {
      first = await post("/settle", body);
    } finally {
      await setMode({});
    }
    expect(first.success, JSON.stringify(first)).toBe(false);
    expect(first.errorReason).toBe("settlement_pending");
    expect(await balanceOf(sellerAta)).toBe(sellerBefore + PRICE_RAW); // it landed
    // The repeat's simulation finds the transaction processed; the ledger's row answers, from the landed transaction.
    const again = await post("/settle", body);
    expect(again.success, JSON.stringify(again)).toBe(true);
    expect(again.transaction).toBe(first.transaction);
    const third = await post("/settle", body);
    expect(third.success).toBe(false);
    expect(third.errorReason).toBe("duplicate_settlement");
    expect(await balanceOf(sellerAta)).toBe(sellerBefore + PRICE_RAW);
  }, 120_000);
});

describe("a smart wallet emptied between /verify and /settle", () => {
  it("is refused by the settle's own simulation: nothing lands, the fee payer pays nothing", async () => {
    const { owner, wallet, source } = await swigBuyer();
    const body = await paymentBody(async (transfer) =>
      swigTransferInstructions(await loadSwig(wallet), owner, { ...transfer, source }),
    );
    expect((await post("/verify", body)).isValid).toBe(true);
    // The owner moves everything out with its own transaction.
    const elsewhere = randomKeypair().address as Address;
    await fundFromFaucet(chain.url, elsewhere, 1_000_000_000, 1);
    const [elsewhereAta] = await findAssociatedTokenPda({
      owner: elsewhere,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    await sendOwn(
      owner,
      await swigTransferInstructions(await loadSwig(wallet), owner, {
        source,
        mint: USDC,
        destination: elsewhereAta,
        amount: 1_000_000n,
        decimals: 6,
      }),
    );
    // The send's preflight would catch it here; on a cluster its state can be older than the settle's reads.
    await setMode({ skipPreflight: true });
    try {
      const feePayerBefore = await lamportsOf(feePayer.address);
      const settled = await post("/settle", body);
      expect(settled.success).toBe(false);
      expect(settled.errorReason).toBe("insufficient_funds");
      expect(settled.transaction ?? "").toBe("");
      expect(await lamportsOf(feePayer.address)).toBe(feePayerBefore);
    } finally {
      await setMode({});
    }
  }, 120_000);
});
