/**
 * The faucet: requestAirdrop (SOL), the requestTokenAirdrop extension (creates the ATA, mints),
 * localnet_createMint, token amounts above 2^53, and the `npm run faucet` CLI.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { address, generateKeyPairSigner, signature as toSignature } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toRawAmount } from "../../scripts/faucet";
import { freeLoopbackPort } from "../../scripts/lib/free-port";
import { CLUSTERS } from "../../src/platform/config/networks";
import { startTestChain, type TestChain } from "./helpers";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const TOKEN_2022_PROGRAM = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
const USDC = address(CLUSTERS.devnet.usdcMint);

let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain.localnet.close();
});

describe("requestAirdrop", () => {
  it("transfers SOL from the faucet in a real, queryable transaction", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const signature = await chain.rpc.requestAirdrop(wallet, 2_500_000_000n as never).send();
    expect((await chain.rpc.getBalance(wallet).send()).value).toBe(2_500_000_000n);
    const status = await chain.rpc.getSignatureStatuses([signature]).send();
    expect(status.value[0]?.err).toBeNull();
    const transaction = await chain.rpc
      .getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(transaction?.transaction.message.accountKeys[0]).toBe(chain.localnet.seeded.faucet);
    // Identical requests in one slot are distinct transactions, not duplicates.
    const again = await chain.rpc.requestAirdrop(wallet, 2_500_000_000n as never).send();
    expect(again).not.toBe(signature);
    expect((await chain.rpc.getBalance(wallet).send()).value).toBe(5_000_000_000n);
  });
});

describe("requestTokenAirdrop", () => {
  it("creates the wallet's USDC account when missing and mints into it", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const [tokenAccount] = await findAssociatedTokenPda({ owner: wallet, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect((await chain.rpc.getAccountInfo(tokenAccount, { encoding: "base64" }).send()).value).toBeNull();

    const first = await chain.raw("requestTokenAirdrop", [wallet, 12_500_000]);
    expect(typeof first.result).toBe("string");
    expect((await chain.rpc.getTokenAccountBalance(tokenAccount).send()).value.uiAmountString).toBe("12.5");
    const second = await chain.raw("requestTokenAirdrop", [wallet, "500000", USDC]);
    expect(second.result).not.toBe(first.result);
    expect((await chain.rpc.getTokenAccountBalance(tokenAccount).send()).value.amount).toBe("13000000");

    // The jsonParsed view the official x402 client reads for token balances.
    const parsed = await chain.raw("getAccountInfo", [tokenAccount, { encoding: "jsonParsed" }]);
    expect(parsed.result).toMatchObject({
      value: {
        owner: TOKEN_PROGRAM,
        data: {
          program: "spl-token",
          parsed: {
            type: "account",
            info: { mint: USDC, owner: wallet, state: "initialized", tokenAmount: { amount: "13000000", decimals: 6 } },
          },
        },
      },
    });
    const transaction = await chain.rpc
      .getTransaction(toSignature(first.result as string), { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    expect(transaction?.meta?.err).toBeNull();
    const supply = await chain.rpc.getTokenSupply(USDC).send();
    expect(BigInt(supply.value.amount)).toBeGreaterThanOrEqual(13_000_000n);
  });

  it("mints amounts above 2^53 exactly, on Token-2022 mints created with localnet_createMint", async () => {
    const created = await chain.raw("localnet_createMint", [{ decimals: 0, tokenProgram: "token-2022" }]);
    const { mint, tokenProgram } = created.result as { mint: string; tokenProgram: string };
    expect(tokenProgram).toBe(TOKEN_2022_PROGRAM);
    const wallet = (await generateKeyPairSigner()).address;
    const big = 2n ** 60n + 1n;
    const reply = await chain.raw("requestTokenAirdrop", [wallet, big, mint]);
    expect(reply.error).toBeUndefined();
    const [tokenAccount] = await findAssociatedTokenPda({
      owner: wallet,
      mint: address(mint),
      tokenProgram: TOKEN_2022_PROGRAM,
    });
    const balance = await chain.rpc.getTokenAccountBalance(tokenAccount).send();
    expect(balance.value.amount).toBe(big.toString());
    const account = await chain.rpc.getAccountInfo(tokenAccount, { encoding: "base64" }).send();
    const bytes = Buffer.from(account.value?.data[0] ?? "", "base64");
    expect(bytes.readBigUInt64LE(64)).toBe(big);
  });

  it("refuses mints the faucet cannot mint", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const nativeMint = await chain.raw("requestTokenAirdrop", [
      wallet,
      1,
      "So11111111111111111111111111111111111111112",
    ]);
    expect(nativeMint.error?.code).toBe(-32602);
    const notAMint = await chain.raw("requestTokenAirdrop", [wallet, 1, wallet]);
    expect(notAMint.error?.code).toBe(-32602);
  });
});

describe("npm run faucet", () => {
  it("parses whole-unit amounts with decimals", () => {
    expect(toRawAmount("12.5", 6)).toBe(12_500_000n);
    expect(toRawAmount("0.000001", 6)).toBe(1n);
    expect(toRawAmount("3", 9)).toBe(3_000_000_000n);
    expect(() => toRawAmount("1.0000001", 6)).toThrow();
    expect(() => toRawAmount("-1", 6)).toThrow();
    expect(() => toRawAmount("0", 6)).toThrow();
  });

  it("funds a wallet with USDC and with SOL through the local chain", async () => {
    const run = promisify(execFile);
    const wallet = (await generateKeyPairSigner()).address;
    const env = { ...process.env, SOLANA_RPC_URL: chain.localnet.url };
    const script = new URL("../../scripts/faucet.ts", import.meta.url).pathname;
    await run(process.execPath, ["--import", "tsx", script, wallet, "7.25"], { env });
    await run(process.execPath, ["--import", "tsx", script, wallet, "1.5", "--sol"], { env });
    const [tokenAccount] = await findAssociatedTokenPda({ owner: wallet, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect((await chain.rpc.getTokenAccountBalance(tokenAccount).send()).value.amount).toBe("7250000");
    expect((await chain.rpc.getBalance(wallet).send()).value).toBe(1_500_000_000n);
  });

  it("finds the chain `npm start` runs on LOCALNET_PORT, and names the URL it could not reach", async () => {
    const run = promisify(execFile);
    const script = new URL("../../scripts/faucet.ts", import.meta.url).pathname;
    const wallet = (await generateKeyPairSigner()).address;
    const { SOLANA_RPC_URL: _, ...inherited } = process.env;
    await run(process.execPath, ["--import", "tsx", script, wallet, "2", "--sol"], {
      env: { ...inherited, LOCALNET_PORT: String(chain.localnet.port) },
    });
    expect((await chain.rpc.getBalance(wallet).send()).value).toBe(2_000_000_000n);

    const deadPort = await freeLoopbackPort();
    const failed = (await run(process.execPath, ["--import", "tsx", script, wallet, "1"], {
      env: { ...inherited, LOCALNET_PORT: String(deadPort) },
    }).catch((error: unknown) => error)) as { code?: number; stderr?: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`the local chain at http://127.0.0.1:${deadPort} did not answer`);
    expect(failed.stderr).toContain("LOCALNET_PORT");
  });
});
