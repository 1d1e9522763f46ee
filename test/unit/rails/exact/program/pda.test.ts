import {
  type Address,
  address,
  getAddressEncoder,
  getProgramDerivedAddress,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { clearPdaCache } from "../../../../../src/chain/program/find-cached-pda";
import { CLUSTERS } from "../../../../../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../../../../../src/rails/exact/cluster-defaults";
import {
  feeShardIndexOf,
  findFeeShardPda,
  findFeeShardSolStoragePda,
  findUniversalSettleConfigPda,
  findVaultPda,
  findVaultSolStoragePda,
} from "../../../../../src/rails/exact/program/pda";
import { addressFromBytes, independentPda, seq32 } from "../../byte-vectors";

const devnetProgram = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
/** Any other deployment (the mainnet id is an operator setting, see src/platform/config/networks.ts). */
const otherProgram = addressFromBytes(seq32(200));
const addressEncoder = getAddressEncoder();
const utf8 = (text: string) => new TextEncoder().encode(text);
const raw = (value: Address) => Uint8Array.from(addressEncoder.encode(value));

function literal(programAddress: Address, seeds: (string | ReadonlyUint8Array)[]) {
  return getProgramDerivedAddress({ programAddress, seeds });
}

const seller = addressFromBytes(seq32(1));

describe("independent PDA derivation (the reference used below)", () => {
  it("agrees with @solana-program/token's ATA for a devnet USDC owner", async () => {
    const owner = address("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
    const mint = address(CLUSTERS.devnet.usdcMint);
    const [ata, bump] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const [ataBytes, independentBump] = independentPda(raw(address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")), [
      raw(owner),
      raw(TOKEN_PROGRAM_ADDRESS),
      raw(mint),
    ]);
    expect(addressFromBytes(ataBytes)).toBe(ata);
    expect(independentBump).toBe(bump);
  });
});

describe("UniversalSettle PDAs", () => {
  it('Config = ["config"]', async () => {
    const expected = await literal(devnetProgram, ["config"]);
    expect(await findUniversalSettleConfigPda(devnetProgram)).toEqual(expected);
    const [bytes, bump] = independentPda(raw(devnetProgram), [utf8("config")]);
    expect(expected).toEqual([addressFromBytes(bytes), bump]);
  });

  it('SplitVault = ["vault", seller]', async () => {
    const expected = await literal(devnetProgram, ["vault", raw(seller)]);
    expect(await findVaultPda(devnetProgram, seller)).toEqual(expected);
    const [bytes, bump] = independentPda(raw(devnetProgram), [utf8("vault"), Uint8Array.from(seq32(1))]);
    expect(expected).toEqual([addressFromBytes(bytes), bump]);
  });

  it('vault SOL storage = ["sol_storage", vault]', async () => {
    const [vault] = await findVaultPda(devnetProgram, seller);
    expect(await findVaultSolStoragePda(devnetProgram, vault)).toEqual(
      await literal(devnetProgram, ["sol_storage", raw(vault)]),
    );
  });

  it('fee shard i = ["fee_shard", u64_le(i)]', async () => {
    const expected = await literal(devnetProgram, ["fee_shard", Uint8Array.of(3, 0, 0, 0, 0, 0, 0, 0)]);
    expect(await findFeeShardPda(devnetProgram, 3n)).toEqual(expected);
    const big = await literal(devnetProgram, [
      "fee_shard",
      Uint8Array.of(0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01),
    ]);
    expect(await findFeeShardPda(devnetProgram, 0x0102030405060708n)).toEqual(big);
    await expect(findFeeShardPda(devnetProgram, -1n)).rejects.toThrow();
  });

  it('fee shard SOL storage = ["fee_shard_sol", shard]', async () => {
    const [shard] = await findFeeShardPda(devnetProgram, 0n);
    expect(await findFeeShardSolStoragePda(devnetProgram, shard)).toEqual(
      await literal(devnetProgram, ["fee_shard_sol", raw(shard)]),
    );
  });

  it("is deterministic with and without the cache, and the program id is a parameter", async () => {
    const first = await findVaultPda(devnetProgram, seller);
    clearPdaCache();
    expect(await findVaultPda(devnetProgram, seller)).toEqual(first);
    expect(await findVaultPda(devnetProgram, seller)).toEqual(first);
    const [elsewhere] = await findVaultPda(otherProgram, seller);
    expect(elsewhere).not.toBe(first[0]);
    const [otherSeller] = await findVaultPda(devnetProgram, addressFromBytes(seq32(2)));
    expect(otherSeller).not.toBe(first[0]);
  });

  it("distinguishes the seed strings", async () => {
    const [vault] = await findVaultPda(devnetProgram, seller);
    const [storage] = await findVaultSolStoragePda(devnetProgram, seller);
    expect(storage).not.toBe(vault);
  });
});

describe("feeShardIndexOf", () => {
  it("is seller_bytes[0] % shard_count", () => {
    const firstByte255 = addressFromBytes([255, ...seq32(1).slice(1)]);
    expect(feeShardIndexOf(firstByte255, 16)).toBe(15n);
    expect(feeShardIndexOf(firstByte255, 255)).toBe(0n);
    expect(feeShardIndexOf(firstByte255, 1)).toBe(0n);
    expect(feeShardIndexOf(seller, 16)).toBe(1n); // first byte 1
    expect(feeShardIndexOf(addressFromBytes([37, ...seq32(1).slice(1)]), 10)).toBe(7n);
  });

  it("rejects shard counts outside u8 1..255", () => {
    expect(() => feeShardIndexOf(seller, 0)).toThrow(RangeError);
    expect(() => feeShardIndexOf(seller, 256)).toThrow(RangeError);
    expect(() => feeShardIndexOf(seller, 1.5)).toThrow(RangeError);
  });
});
