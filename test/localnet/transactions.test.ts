/**
 * Transaction semantics the payment flows depend on: the 150-block blockhash window, duplicate
 * rejection, failed transactions that land and pay fees, preflight errors shaped like a node's,
 * simulateTransaction, and the records getSignatureStatuses / getTransaction return.
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  type KeyPairSigner,
  pipe,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  blockhash as toBlockhash,
  signature as toSignature,
} from "@solana/kit";
import {
  getCreateAccountInstruction,
  getInitializeNonceAccountInstruction,
  getTransferSolInstruction,
} from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTERS } from "../../src/platform/config/networks";
import {
  fundedSigner,
  latestLifetime,
  send,
  signedTransaction,
  startTestChain,
  type TestChain,
  thrown,
  transferTransaction,
} from "./helpers";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const COMPUTE_BUDGET_PROGRAM = address("ComputeBudget111111111111111111111111111111");
const USDC = address(CLUSTERS.devnet.usdcMint);

let chain: TestChain;
let payer: KeyPairSigner;

beforeAll(async () => {
  chain = await startTestChain();
  payer = await fundedSigner(chain);
});
afterAll(async () => {
  await chain.localnet.close();
});

function expectPreflightFailure(error: unknown, transactionErrorCode: number) {
  expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
  expect(isSolanaError((error as Error).cause, transactionErrorCode as never)).toBe(true);
}

async function statusOf(signature: string) {
  const { value } = await chain.rpc
    .getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true })
    .send();
  return value[0];
}

describe("blockhash window", () => {
  it("returns lastValidBlockHeight = block height + 150 and validates blockhashes", async () => {
    const { context, value } = await chain.rpc.getLatestBlockhash().send();
    const height = await chain.rpc.getBlockHeight().send();
    expect(value.lastValidBlockHeight - height).toBeGreaterThanOrEqual(149n);
    expect(value.lastValidBlockHeight - height).toBeLessThanOrEqual(150n);
    expect(context.slot).toBeGreaterThan(0n);
    expect((await chain.rpc.isBlockhashValid(value.blockhash).send()).value).toBe(true);
    const unknown = getBase58Decoder().decode(new Uint8Array(32).fill(7));
    expect((await chain.rpc.isBlockhashValid(toBlockhash(unknown)).send()).value).toBe(false);
  });

  it("lands a transaction whose blockhash is several slots old, and rejects it after 150 blocks", async () => {
    const oldLifetime = await latestLifetime(chain);
    await chain.raw("localnet_warpSlots", [10]);
    const newer = await latestLifetime(chain);
    expect(newer.blockhash).not.toBe(oldLifetime.blockhash);

    const recipient = (await generateKeyPairSigner()).address;
    const landed = await transferTransaction(payer, recipient, 1_000_000n, oldLifetime);
    expect(await send(chain, landed.wire)).toBe(landed.signature);
    expect((await statusOf(landed.signature))?.err).toBeNull();

    const expiring = await transferTransaction(payer, recipient, 2_000_000n, oldLifetime);
    await chain.raw("localnet_warpSlots", [141]); // 10 + 141 = 151 blocks past issue
    expect((await chain.rpc.isBlockhashValid(toBlockhash(oldLifetime.blockhash)).send()).value).toBe(false);
    expect(await chain.rpc.getBlockHeight().send()).toBeGreaterThan(oldLifetime.lastValidBlockHeight);

    expectPreflightFailure(
      await thrown(() => send(chain, expiring.wire)),
      SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
    );
    const preflight = await chain.raw("sendTransaction", [expiring.wire, { encoding: "base64" }]);
    expect(preflight.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Blockhash not found",
      data: { err: "BlockhashNotFound", logs: [], accounts: null },
    });
    const simulated = await chain.rpc.simulateTransaction(expiring.wire as never, { encoding: "base64" }).send();
    expect(simulated.value.err).toBe("BlockhashNotFound");

    // Without preflight a node accepts the bytes and the transaction silently never lands.
    expect(await send(chain, expiring.wire, true)).toBe(expiring.signature);
    expect(await statusOf(expiring.signature)).toBeNull();
    expect((await chain.rpc.getBalance(recipient).send()).value).toBe(1_000_000n);
  });

  it("rejects a blockhash it never issued", async () => {
    const fake = { blockhash: getBase58Decoder().decode(new Uint8Array(32).fill(9)), lastValidBlockHeight: 0n };
    const transaction = await transferTransaction(payer, payer.address, 1n, fake);
    expectPreflightFailure(
      await thrown(() => send(chain, transaction.wire)),
      SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
    );
  });
});

describe("durable nonces", () => {
  it("accept a transaction whose 'blockhash' is the stored nonce, long after any blockhash expired, once", async () => {
    const nonceAccount = await generateKeyPairSigner();
    const space = 80n;
    const rent = await chain.rpc.getMinimumBalanceForRentExemption(space).send();
    const setup = await signedTransaction(
      payer,
      [
        getCreateAccountInstruction({
          payer,
          newAccount: nonceAccount,
          lamports: rent,
          space,
          programAddress: address("11111111111111111111111111111111"),
        }),
        getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: payer.address }),
      ],
      await latestLifetime(chain),
    );
    await send(chain, setup.wire);
    await chain.raw("localnet_warpSlots", [200]);
    const { value } = await chain.rpc.getAccountInfo(nonceAccount.address, { encoding: "base64" }).send();
    const storedNonce = getBase58Decoder().decode(Buffer.from(value?.data[0] ?? "", "base64").subarray(40, 72));

    const recipient = (await generateKeyPairSigner()).address;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(payer, draft),
      (draft) =>
        setTransactionMessageLifetimeUsingDurableNonce(
          {
            nonce: storedNonce as never,
            nonceAccountAddress: nonceAccount.address,
            nonceAuthorityAddress: payer.address,
          },
          draft,
        ),
      (draft) =>
        appendTransactionMessageInstructions(
          [getTransferSolInstruction({ source: payer, destination: recipient, amount: 1_000_000n })],
          draft,
        ),
    );
    const transaction = await signTransactionMessageWithSigners(message);
    const wire = getBase64EncodedWireTransaction(transaction);
    expect(await send(chain, wire)).toBe(getSignatureFromTransaction(transaction));
    expect((await chain.rpc.getBalance(recipient).send()).value).toBe(1_000_000n);
    // The nonce advanced, so the same bytes can never land again.
    await chain.raw("localnet_warpSlots", [1]);
    expectPreflightFailure(await thrown(() => send(chain, wire)), SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND);
  });
});

describe("duplicates", () => {
  it("rejects a re-sent transaction with AlreadyProcessed while its blockhash lives", async () => {
    const recipient = (await generateKeyPairSigner()).address;
    const transaction = await transferTransaction(payer, recipient, 3_000_000n, await latestLifetime(chain));
    await send(chain, transaction.wire);
    await chain.raw("localnet_warpSlots", [20]);
    expectPreflightFailure(
      await thrown(() => send(chain, transaction.wire)),
      SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
    );
    const simulated = await chain.rpc.simulateTransaction(transaction.wire as never, { encoding: "base64" }).send();
    expect(simulated.value.err).toBe("AlreadyProcessed");
    // skipPreflight: the node answers with the signature, nothing is executed twice.
    expect(await send(chain, transaction.wire, true)).toBe(transaction.signature);
    expect((await chain.rpc.getBalance(recipient).send()).value).toBe(3_000_000n);
  });

  it(
    "treats the same message under other signatures as AlreadyProcessed too (the status cache keys by message " +
      "hash)",
    async () => {
      const recipient = (await generateKeyPairSigner()).address;
      const transaction = await transferTransaction(payer, recipient, 2_000_000n, await latestLifetime(chain));
      await send(chain, transaction.wire);
      // The same message with the signature zeroed, as a facilitator sees a payment before it co-signs.
      const unsigned = Buffer.from(transaction.wire, "base64");
      unsigned.fill(0, 1, 65);
      const simulated = await chain.rpc
        .simulateTransaction(unsigned.toString("base64") as never, { encoding: "base64" })
        .send();
      expect(simulated.value.err).toBe("AlreadyProcessed");
      expect((await chain.rpc.getBalance(recipient).send()).value).toBe(2_000_000n);
    },
  );
});

describe("failed transactions", () => {
  it("land without preflight, pay the fee and expose the error via statuses and getTransaction", async () => {
    const poor = await fundedSigner(chain, 1_000_000n);
    const recipient = (await generateKeyPairSigner()).address;
    const transaction = await transferTransaction(poor, recipient, 5_000_000n, await latestLifetime(chain));

    const preflight = await chain.raw("sendTransaction", [transaction.wire, { encoding: "base64" }]);
    expect(preflight.error?.code).toBe(-32002);
    expect(preflight.error?.message).toBe(
      "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
    );
    const data = preflight.error?.data as { err: unknown; logs: string[]; unitsConsumed: bigint | number };
    expect(data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(data.logs.some((line) => line.includes("insufficient lamports"))).toBe(true);
    expect((await chain.rpc.getBalance(poor.address).send()).value).toBe(1_000_000n);

    expect(await send(chain, transaction.wire, true)).toBe(transaction.signature);
    const status = await statusOf(transaction.signature);
    // kit parses every integer in a response as bigint
    expect(status).toMatchObject({ err: { InstructionError: [0n, { Custom: 1n }] }, confirmationStatus: "finalized" });
    expect((await chain.rpc.getBalance(poor.address).send()).value).toBe(995_000n);

    const confirmed = await chain.rpc
      .getTransaction(toSignature(transaction.signature), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(confirmed?.meta?.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(confirmed?.meta?.fee).toBe(5_000n);
    expect(confirmed?.meta?.preBalances[0]).toBe(1_000_000n);
    expect(confirmed?.meta?.postBalances[0]).toBe(995_000n);
  });
});

describe("landed transactions", () => {
  it("records a System transfer with balances, logs, fee and both json and base64 encodings", async () => {
    const recipient = (await generateKeyPairSigner()).address;
    const transaction = await transferTransaction(payer, recipient, 7_000_000n, await latestLifetime(chain));
    const before = (await chain.rpc.getBalance(payer.address).send()).value;
    await send(chain, transaction.wire);

    const status = await chain.rpc.getSignatureStatuses([toSignature(transaction.signature)]).send();
    expect(status.value[0]).toMatchObject({
      err: null,
      confirmations: null,
      confirmationStatus: "finalized",
      status: { Ok: null },
    });

    const json = await chain.rpc
      .getTransaction(toSignature(transaction.signature), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(json?.version).toBe(0);
    expect(json?.blockTime).toBeGreaterThan(0n);
    expect(json?.transaction.signatures).toEqual([transaction.signature]);
    expect(json?.transaction.message.accountKeys).toEqual([
      payer.address,
      recipient,
      "11111111111111111111111111111111",
    ]);
    expect(json?.meta).toMatchObject({
      err: null,
      fee: 5_000n,
      preBalances: [before, 0n, 1n],
      postBalances: [before - 7_005_000n, 7_000_000n, 1n],
      preTokenBalances: [],
      postTokenBalances: [],
      loadedAddresses: { writable: [], readonly: [] },
    });
    expect(json?.meta?.logMessages).toContain("Program 11111111111111111111111111111111 success");

    const base64 = await chain.rpc
      .getTransaction(toSignature(transaction.signature), { encoding: "base64", maxSupportedTransactionVersion: 0 })
      .send();
    expect(base64?.transaction).toEqual([transaction.wire, "base64"]);

    // v0 transactions need maxSupportedTransactionVersion, like on a real node.
    const noVersion = await chain.raw("getTransaction", [transaction.signature, { encoding: "json" }]);
    expect(noVersion.error?.code).toBe(-32015);
    // Unknown signatures are null, not errors.
    const unknown = getBase58Decoder().decode(new Uint8Array(64).fill(3));
    expect(
      await chain.rpc
        .getTransaction(toSignature(unknown), { encoding: "json", maxSupportedTransactionVersion: 0 })
        .send(),
    ).toBeNull();
    expect((await chain.rpc.getSignatureStatuses([toSignature(unknown)]).send()).value).toEqual([null]);

    const history = await chain.rpc.getSignaturesForAddress(recipient).send();
    expect(history.map((entry) => entry.signature)).toEqual([transaction.signature]);
  });

  it("records an SPL TransferChecked with pre/post token balances", async () => {
    const receiver = await generateKeyPairSigner();
    const airdrop = await chain.raw("requestTokenAirdrop", [payer.address, "25000000"]);
    expect(typeof airdrop.result).toBe("string");
    const [source] = await findAssociatedTokenPda({ owner: payer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    const [destination] = await findAssociatedTokenPda({
      owner: receiver.address,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
    });
    const transaction = await signedTransaction(
      payer,
      [
        getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: receiver.address, mint: USDC }),
        getTransferCheckedInstruction({
          source,
          mint: USDC,
          destination,
          authority: payer,
          amount: 1_250_000n,
          decimals: 6,
        }),
      ],
      await latestLifetime(chain),
    );
    await send(chain, transaction.wire);

    expect((await chain.rpc.getTokenAccountBalance(destination).send()).value).toEqual({
      amount: "1250000",
      decimals: 6,
      uiAmount: 1.25,
      uiAmountString: "1.25",
    });
    const confirmed = await chain.rpc
      .getTransaction(toSignature(transaction.signature), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    const keys = confirmed?.transaction.message.accountKeys ?? [];
    const post = confirmed?.meta?.postTokenBalances ?? [];
    const postOf = (account: string) => post.find((balance) => keys[Number(balance.accountIndex)] === account);
    expect(postOf(destination)).toMatchObject({
      mint: USDC,
      owner: receiver.address,
      uiTokenAmount: { amount: "1250000" },
    });
    expect(postOf(source)?.uiTokenAmount.amount).toBe("23750000");
    const pre = confirmed?.meta?.preTokenBalances ?? [];
    expect(pre.find((balance) => keys[Number(balance.accountIndex)] === source)?.uiTokenAmount.amount).toBe("25000000");
    expect(pre.some((balance) => keys[Number(balance.accountIndex)] === destination)).toBe(false);

    const owned = await chain.rpc
      .getTokenAccountsByOwner(receiver.address, { mint: USDC }, { encoding: "base64" })
      .send();
    expect(owned.value.map((entry) => entry.pubkey)).toEqual([destination]);
  });

  it("charges and reports the priority fee, matching getFeeForMessage", async () => {
    const limit = new Uint8Array([2, 0, 0, 0, 0]);
    new DataView(limit.buffer).setUint32(1, 50_000, true);
    const price = new Uint8Array(9);
    price[0] = 3;
    new DataView(price.buffer).setBigUint64(1, 3_000n, true);
    const transaction = await signedTransaction(
      payer,
      [
        { programAddress: COMPUTE_BUDGET_PROGRAM, data: limit },
        { programAddress: COMPUTE_BUDGET_PROGRAM, data: price },
        getTransferSolInstruction({
          source: payer,
          destination: (await generateKeyPairSigner()).address,
          amount: 1_000_000n,
        }),
      ],
      await latestLifetime(chain),
    );
    const messageBase64 = Buffer.from(transaction.messageBytes).toString("base64");
    const quoted = await chain.rpc.getFeeForMessage(messageBase64 as never).send();
    expect(quoted.value).toBe(5_000n + 150n); // ceil(3000 µlamports × 50000 CU / 10^6)
    await send(chain, transaction.wire);
    const confirmed = await chain.rpc
      .getTransaction(toSignature(transaction.signature), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(confirmed?.meta?.fee).toBe(5_150n);
    const [pre, post] = [confirmed?.meta?.preBalances[0] ?? 0n, confirmed?.meta?.postBalances[0] ?? 0n];
    expect(pre - post).toBe(1_005_150n);
  });

  it("accepts base58-encoded transactions (the sendTransaction default)", async () => {
    const transaction = await transferTransaction(
      payer,
      (await generateKeyPairSigner()).address,
      1_000_000n,
      await latestLifetime(chain),
    );
    const base58 = getBase58Decoder().decode(Buffer.from(transaction.wire, "base64"));
    const reply = await chain.raw("sendTransaction", [base58]);
    expect(reply.result).toBe(transaction.signature);
  });

  it("verifies signatures in preflight (-32003) and drops badly signed transactions without it", async () => {
    const transaction = await transferTransaction(payer, payer.address, 1n, await latestLifetime(chain));
    const bytes = Buffer.from(transaction.wire, "base64");
    bytes[5] = (bytes[5] ?? 0) ^ 0xff; // corrupt the signature
    const tampered = bytes.toString("base64");
    const error = await thrown(() => send(chain, tampered));
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE)).toBe(
      true,
    );
    const dropped = await send(chain, tampered, true);
    expect(await statusOf(dropped)).toBeNull();
  });
});

describe("simulateTransaction", () => {
  async function unsignedTransfer(feePayer: string, lifetimeBlockhash: string) {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayer(address(feePayer), draft),
      (draft) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: toBlockhash(lifetimeBlockhash), lastValidBlockHeight: 0n },
          draft,
        ),
      (draft) =>
        appendTransactionMessageInstructions(
          [getTransferSolInstruction({ source: payer, destination: address(feePayer), amount: 1_000n })],
          draft,
        ),
    );
    return getBase64EncodedWireTransaction(compileTransaction(message));
  }

  it("simulates unsigned transactions (sigVerify false) and reports logs, units and post-state accounts", async () => {
    const latest = await latestLifetime(chain);
    const wire = await unsignedTransfer(payer.address, latest.blockhash);
    const balance = (await chain.rpc.getBalance(payer.address).send()).value;
    const result = await chain.rpc
      .simulateTransaction(wire as never, {
        encoding: "base64",
        accounts: { addresses: [payer.address], encoding: "base64" },
      })
      .send();
    expect(result.value.err).toBeNull();
    expect(result.value.logs?.length).toBeGreaterThan(0);
    expect(result.value.unitsConsumed).toBeGreaterThan(0n);
    expect(result.value.returnData).toBeNull();
    expect(result.value.accounts?.[0]?.lamports).toBe(balance - 5_000n);
    expect((await chain.rpc.getBalance(payer.address).send()).value).toBe(balance); // nothing committed

    const plain = await chain.rpc.simulateTransaction(wire as never, { encoding: "base64" }).send();
    expect(plain.value.accounts).toBeNull();
    expect(plain.context.slot).toBeGreaterThan(0n);
  });

  it("replaces an expired blockhash on request and refuses sigVerify on unsigned transactions", async () => {
    const stale = getBase58Decoder().decode(new Uint8Array(32).fill(5));
    const wire = await unsignedTransfer(payer.address, stale);
    const replaced = await chain.rpc
      .simulateTransaction(wire as never, { encoding: "base64", replaceRecentBlockhash: true })
      .send();
    expect(replaced.value.err).toBeNull();
    const latest = await latestLifetime(chain);
    expect(replaced.value.replacementBlockhash?.blockhash).toBe(latest.blockhash);

    const verify = await chain.raw("simulateTransaction", [wire, { encoding: "base64", sigVerify: true }]);
    expect(verify.error?.code).toBe(-32003);
    const both = await chain.raw("simulateTransaction", [
      wire,
      { encoding: "base64", sigVerify: true, replaceRecentBlockhash: true },
    ]);
    expect(both.error?.code).toBe(-32602);
  });

  it("reports execution errors in value.err with the logs", async () => {
    const latest = await latestLifetime(chain);
    const broke = await generateKeyPairSigner();
    await chain.rpc.requestAirdrop(broke.address, 1_000_000n as never).send();
    const transaction = await transferTransaction(broke, payer.address, 5_000_000n, latest);
    const result = await chain.rpc
      .simulateTransaction(transaction.wire as never, { encoding: "base64", sigVerify: true })
      .send();
    expect(result.value.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(result.value.logs?.some((line) => line.includes("insufficient lamports"))).toBe(true);
  });
});

describe("malformed input", () => {
  it("rejects undecodable and oversized transactions with -32602", async () => {
    const garbage = await chain.raw("sendTransaction", [
      Buffer.from([1, 2, 3]).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(garbage.error?.code).toBe(-32602);
    const huge = await chain.raw("sendTransaction", [Buffer.alloc(1300).toString("base64"), { encoding: "base64" }]);
    expect(huge.error?.code).toBe(-32602);
    expect(huge.error?.message).toContain("too large");
    const transaction = await transferTransaction(payer, payer.address, 1n, await latestLifetime(chain));
    // zero signatures although the message requires one
    const noSignatures = Uint8Array.from([0, ...transaction.messageBytes]);
    const unsanitary = await chain.raw("sendTransaction", [
      Buffer.from(noSignatures).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(unsanitary.error?.code).toBe(-32602);
  });
});
