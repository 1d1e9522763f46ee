/**
 * The local chain looks like devnet, carries the seeded program state, keeps u64 values exact over
 * JSON, and speaks JSON-RPC 2.0 (batches, errors) like a node.
 */
import { type Address, address, generateKeyPairSigner, getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STANDIN_PROGRAMS } from "../../localnet/programs/index";
import { CLUSTERS } from "../../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../../src/rails/exact/cluster-defaults";
import { decodeUniversalSettleConfig } from "../../src/rails/exact/program/accounts";
import { findUniversalSettleConfigPda } from "../../src/rails/exact/program/pda";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../src/rails/sla-escrow/cluster-defaults";
import { decodeBank, decodeEscrow, decodeEscrowConfig } from "../../src/rails/sla-escrow/program/accounts";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findEscrowSolStoragePda,
  NATIVE_SOL_ESCROW_MINT,
} from "../../src/rails/sla-escrow/program/pda";
import { startTestChain, type TestChain } from "./helpers";

const devnet = CLUSTERS.devnet;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const TWO_POW_60_PLUS_1 = 2n ** 60n + 1n;
const U64_MAX = 2n ** 64n - 1n;

let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain.localnet.close();
});

async function accountBytes(pubkey: string) {
  const { value } = await chain.rpc.getAccountInfo(address(pubkey), { encoding: "base64" }).send();
  if (value === null) throw new Error(`missing account ${pubkey}`);
  return { ...value, bytes: new Uint8Array(Buffer.from(value.data[0], "base64")) };
}

describe("devnet identity", () => {
  it("reports devnet's genesis hash, a version and health", async () => {
    expect(await chain.rpc.getGenesisHash().send()).toBe(devnet.genesisHash);
    expect(devnet.network).toBe(`solana:${devnet.genesisHash.slice(0, 32)}`);
    const version = await chain.rpc.getVersion().send();
    expect(version["solana-core"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await chain.rpc.getHealth().send()).toBe("ok");
    const health = await fetch(`${chain.localnet.url}/health`);
    expect(await health.text()).toBe("ok");
  });

  it("advances slots with wall-clock time (~400 ms each); block height trails the slot", async () => {
    const startedMs = performance.now();
    const first = await chain.rpc.getSlot().send();
    await new Promise((resolve) => setTimeout(resolve, 850));
    const second = await chain.rpc.getSlot().send();
    const elapsedSlots = (performance.now() - startedMs) / 400;
    expect(Number(second - first)).toBeGreaterThanOrEqual(Math.floor(elapsedSlots) - 1);
    expect(Number(second - first)).toBeLessThanOrEqual(Math.ceil(elapsedSlots) + 1);
    expect(second - first).toBeGreaterThanOrEqual(1n);
    const height = await chain.rpc.getBlockHeight().send();
    expect(height).toBeLessThan(second);
    const epochInfo = await chain.rpc.getEpochInfo().send();
    expect(epochInfo.absoluteSlot).toBeGreaterThanOrEqual(second);
    expect(epochInfo.epoch).toBe(epochInfo.absoluteSlot / 432_000n);
    expect(epochInfo.slotIndex).toBe(epochInfo.absoluteSlot % 432_000n);
  });

  it("puts wall-clock unix time and the current slot into the Clock sysvar", async () => {
    const clock = await accountBytes("SysvarC1ock11111111111111111111111111111111");
    const view = new DataView(clock.bytes.buffer);
    const slot = view.getBigUint64(0, true);
    const unixTimestamp = view.getBigInt64(32, true);
    expect(Number(unixTimestamp)).toBeGreaterThan(Date.now() / 1000 - 5);
    expect(Number(unixTimestamp)).toBeLessThan(Date.now() / 1000 + 5);
    const currentSlot = await chain.rpc.getSlot().send();
    expect(currentSlot - slot).toBeLessThanOrEqual(1n);
  });

  it("rejects requests for a context slot it has not reached (-32016)", async () => {
    const slot = await chain.rpc.getSlot().send();
    const reply = await chain.raw("getBalance", [devnet.usdcMint, { minContextSlot: slot + 1000n }]);
    expect(reply.error?.code).toBe(-32016);
  });
});

describe("seeded state", () => {
  it("has the devnet USDC mint (6 decimals, SPL Token) with the faucet as mint authority", async () => {
    const mint = await accountBytes(devnet.usdcMint);
    expect(mint.owner).toBe(TOKEN_PROGRAM);
    expect(mint.space).toBe(82n);
    expect(mint.bytes[44]).toBe(6);
    const parsed = await chain.raw("getAccountInfo", [devnet.usdcMint, { encoding: "jsonParsed" }]);
    const info = (parsed.result as { value: { data: { parsed: { info: Record<string, unknown> } } } }).value.data.parsed
      .info;
    expect(info.mintAuthority).toBe(chain.localnet.seeded.faucet);
    expect(info.decimals).toBe(6);
  });

  it("has the UniversalSettle Config at its devnet PDA with the documented layout", async () => {
    const [configAddress] = await findUniversalSettleConfigPda(
      address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId),
    );
    expect(configAddress).toBe(chain.localnet.seeded.universalSettle.config);
    const account = await accountBytes(configAddress);
    expect(account.owner).toBe(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
    expect(account.space).toBe(120n);
    expect(account.bytes[0]).toBe(0);
    const config = decodeUniversalSettleConfig(account.bytes);
    expect(config).toMatchObject({
      authority: chain.localnet.seeded.operator,
      feeDestination: chain.localnet.seeded.operator,
      minFeeAmountRaw: 10_000n,
      provisioningFeeLamports: 10_000_000n,
      provisioningFeeRaw: 1_000_000n,
      feeBps: 100,
      discountedFeeBps: 90,
      useFeeShard: false,
    });
    const rentExempt = await chain.rpc.getMinimumBalanceForRentExemption(120n).send();
    expect(account.lamports).toBe(rentExempt);
  });

  it("has the SLA-Escrow Bank, Config and the SOL and USDC escrows at their devnet PDAs", async () => {
    const program = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
    const [bank] = await findBankPda(program);
    const [config] = await findEscrowConfigPda(program);
    const bankAccount = await accountBytes(bank);
    expect(bankAccount.owner).toBe(program);
    expect(bankAccount.space).toBe(56n);
    expect(decodeBank(bankAccount.bytes)?.authority).toBe(chain.localnet.seeded.operator);
    const configAccount = await accountBytes(config);
    expect(configAccount.space).toBe(40n);
    expect(decodeEscrowConfig(configAccount.bytes)?.deliveryCutoffSeconds).toBe(300n);

    const [solEscrow] = await findEscrowPda(program, NATIVE_SOL_ESCROW_MINT, bank);
    const [solStorage] = await findEscrowSolStoragePda(program, NATIVE_SOL_ESCROW_MINT, bank, solEscrow);
    const solEscrowAccount = await accountBytes(solEscrow);
    expect(solEscrowAccount.space).toBe(128n);
    expect(decodeEscrow(solEscrowAccount.bytes)).toMatchObject({
      mint: NATIVE_SOL_ESCROW_MINT,
      escrowTokens: solStorage,
    });
    const storage = await accountBytes(solStorage);
    expect(storage.lamports).toBe(await chain.rpc.getMinimumBalanceForRentExemption(0n).send());
    expect(storage.owner).toBe("11111111111111111111111111111111");
    expect(storage.space).toBe(0n);

    const usdc = address(devnet.usdcMint);
    const [usdcEscrow] = await findEscrowPda(program, usdc, bank);
    const [vault] = await findAssociatedTokenPda({
      owner: usdcEscrow,
      mint: usdc,
      tokenProgram: address(TOKEN_PROGRAM),
    });
    expect(decodeEscrow((await accountBytes(usdcEscrow)).bytes)).toMatchObject({ mint: usdc, escrowTokens: vault });
    const vaultAccount = await accountBytes(vault);
    expect(vaultAccount.owner).toBe(TOKEN_PROGRAM);
    expect(vaultAccount.space).toBe(165n);
    const balance = await chain.rpc.getTokenAccountBalance(vault).send();
    expect(balance.value).toMatchObject({ amount: "0", decimals: 6 });
    expect(getBase58Encoder().encode(usdcEscrow)).toEqual(vaultAccount.bytes.subarray(32, 64));
  });

  it("has the built-in programs, the native mint and the stand-in programs", async () => {
    const programs = [
      "11111111111111111111111111111111",
      TOKEN_PROGRAM,
      "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
      "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
      "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
      "ComputeBudget111111111111111111111111111111",
      ...STANDIN_PROGRAMS.map((program) => program.programId),
    ];
    const { value } = await chain.rpc
      .getMultipleAccounts(
        programs.map((pubkey) => address(pubkey)),
        { encoding: "base64" },
      )
      .send();
    value.forEach((account, index) => {
      expect(account, programs[index]).not.toBeNull();
      expect(account?.executable, programs[index]).toBe(true);
    });
    const nativeMint = await accountBytes("So11111111111111111111111111111111111111112");
    expect(nativeMint.owner).toBe(TOKEN_PROGRAM);
    expect(nativeMint.bytes[44]).toBe(9);
  });
});

describe("exact u64 numbers", () => {
  let holder: Address;
  beforeAll(async () => {
    holder = (await generateKeyPairSigner()).address;
  });

  it("stores and reads back 2^60+1 lamports exactly (getBalance, getAccountInfo, raw JSON)", async () => {
    const set = await chain.raw("localnet_setAccount", [holder, { lamports: TWO_POW_60_PLUS_1, dataBase64: "AQID" }]);
    expect(set.result).toBe(true);
    const { value: balance } = await chain.rpc.getBalance(holder).send();
    expect(balance).toBe(TWO_POW_60_PLUS_1);
    const { value: account } = await chain.rpc.getAccountInfo(holder, { encoding: "base64" }).send();
    expect(account?.lamports).toBe(TWO_POW_60_PLUS_1);
    // kit's type omits rentEpoch, but the node sends it (u64::MAX, exact)
    expect((account as unknown as { rentEpoch: bigint }).rentEpoch).toBe(U64_MAX);
    expect(account?.data).toEqual(["AQID", "base64"]);
    const response = await fetch(chain.localnet.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["${holder}"]}`,
    });
    expect(await response.text()).toContain(`"value":${TWO_POW_60_PLUS_1}}`);
  });

  it("accepts u64 parameters above 2^53 written as bare JSON numbers", async () => {
    const response = await chain.post(
      `{"jsonrpc":"2.0","id":7,"method":"localnet_setAccount",` +
        `"params":["${holder}",{"lamports":18446744073709551615}]}`,
    );
    expect(response).toMatchObject({ result: true, id: 7 });
    expect((await chain.rpc.getBalance(holder).send()).value).toBe(U64_MAX);
  });
});

describe("JSON-RPC envelope and account encodings", () => {
  it("answers batches in order, with per-request errors", async () => {
    const replies = (await chain.post(
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "getGenesisHash" },
        { jsonrpc: "2.0", id: "b", method: "noSuchMethod" },
        { jsonrpc: "2.0", id: "c", method: "getBalance", params: ["not-a-key"] },
        { jsonrpc: "2.0", id: "d", method: "getSlot" },
      ]),
    )) as { id: string; result?: unknown; error?: { code: number } }[];
    expect(replies.map((reply) => reply.id)).toEqual(["a", "b", "c", "d"]);
    expect(replies[0]?.result).toBe(devnet.genesisHash);
    expect(replies[1]?.error?.code).toBe(-32601);
    expect(replies[2]?.error?.code).toBe(-32602);
    expect(typeof replies[3]?.result).toBe("number");
  });

  it("reports parse errors and invalid requests", async () => {
    expect(await chain.post("{not json")).toMatchObject({ error: { code: -32700 }, id: null });
    expect(await chain.post("[]")).toMatchObject({ error: { code: -32600 } });
    expect(await chain.post('{"id":1,"method":"getSlot"}')).toMatchObject({ error: { code: -32600 }, id: 1 });
  });

  it("serves base58 (legacy and tagged), base64, dataSlice and jsonParsed fallbacks", async () => {
    const pubkey = (await generateKeyPairSigner()).address;
    await chain.raw("localnet_setAccount", [
      pubkey,
      { lamports: 1_000_000, dataBase64: Buffer.from([1, 2, 3, 4, 5]).toString("base64") },
    ]);
    const legacy = await chain.raw("getAccountInfo", [pubkey]);
    expect((legacy.result as { value: { data: unknown } }).value.data).toBe("7bWpTW");
    const tagged = await chain.raw("getAccountInfo", [pubkey, { encoding: "base58" }]);
    expect((tagged.result as { value: { data: unknown } }).value.data).toEqual(["7bWpTW", "base58"]);
    const { value: sliced } = await chain.rpc
      .getAccountInfo(address(pubkey), { encoding: "base64", dataSlice: { offset: 1, length: 2 } })
      .send();
    expect(Buffer.from(sliced?.data[0] ?? "", "base64")).toEqual(Buffer.from([2, 3]));
    expect(sliced?.space).toBe(5n);
    const parsed = await chain.raw("getAccountInfo", [pubkey, { encoding: "jsonParsed" }]);
    expect((parsed.result as { value: { data: unknown } }).value.data).toEqual(["AQIDBAU=", "base64"]);
    const missing = await chain.rpc
      .getAccountInfo((await generateKeyPairSigner()).address, { encoding: "base64" })
      .send();
    expect(missing.value).toBeNull();
    expect(missing.context.slot).toBeGreaterThan(0n);
  });

  it("filters getProgramAccounts by dataSize and memcmp", async () => {
    const program = SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId;
    const all = await chain.rpc.getProgramAccounts(address(program), { encoding: "base64" }).send();
    expect(all.length).toBeGreaterThanOrEqual(4); // bank, config, 2 escrows
    const escrows = await chain.rpc
      .getProgramAccounts(address(program), {
        encoding: "base64",
        filters: [
          { dataSize: 128n },
          // byte 0 = the Escrow account discriminator (102)
          {
            memcmp: {
              offset: 0n,
              bytes: getBase58Decoder().decode(new Uint8Array([102])) as never,
              encoding: "base58",
            },
          },
        ],
      })
      .send();
    expect(escrows.map((entry) => entry.pubkey).sort()).toEqual(
      [chain.localnet.seeded.slaEscrow.solEscrow.escrow, chain.localnet.seeded.slaEscrow.usdcEscrow.escrow].sort(),
    );
  });
});
