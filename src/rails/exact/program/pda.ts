/**
 * UniversalSettle PDAs (docs/universal-settle-abi.md "PDAs"). Every function returns kit's
 * `ProgramDerivedAddress` tuple `[address, bump]`, the same convention as SLA-Escrow's pda.ts and
 * `@solana-program/token`'s `findAssociatedTokenPda`. The program id is always a parameter.
 */
import { type Address, getAddressEncoder, getU64Encoder, type ProgramDerivedAddress } from "@solana/kit";
import { findCachedPda } from "../../../chain/program/find-cached-pda";

const textEncoder = new TextEncoder();
const CONFIG_SEED = textEncoder.encode("config");
const VAULT_SEED = textEncoder.encode("vault");
const SOL_STORAGE_SEED = textEncoder.encode("sol_storage");
const FEE_SHARD_SEED = textEncoder.encode("fee_shard");
const FEE_SHARD_SOL_SEED = textEncoder.encode("fee_shard_sol");

const addressEncoder = getAddressEncoder();
const u64Encoder = getU64Encoder();

/** The program-wide Config: seeds `"config"`. */
export async function findUniversalSettleConfigPda(programId: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [CONFIG_SEED]);
}

/** The seller's SplitVault (the `exact` payTo): seeds `"vault"`, seller wallet. */
export async function findVaultPda(programId: Address, seller: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [VAULT_SEED, addressEncoder.encode(seller)]);
}

/** Where native-SOL payments to a vault land: seeds `"sol_storage"`, vault PDA. */
export async function findVaultSolStoragePda(programId: Address, vault: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [SOL_STORAGE_SEED, addressEncoder.encode(vault)]);
}

/** Fee shard `index`: seeds `"fee_shard"`, u64 little-endian index. */
export async function findFeeShardPda(programId: Address, index: bigint): Promise<ProgramDerivedAddress> {
  // The u64 encoder throws on negative or > u64::MAX, so a bad index cannot alias another shard.
  return findCachedPda(programId, [FEE_SHARD_SEED, u64Encoder.encode(index)]);
}

/** A fee shard's SOL storage: seeds `"fee_shard_sol"`, shard PDA. */
export async function findFeeShardSolStoragePda(programId: Address, shard: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [FEE_SHARD_SOL_SEED, addressEncoder.encode(shard)]);
}

/**
 * The fee shard a seller's sweeps pay into: `seller_bytes[0] % shard_count`. Only meaningful when the
 * Config has `useFeeShard`; `shardCount` is Config.shard_count (u8), so 0 (no shards) throws.
 */
export function feeShardIndexOf(seller: Address, shardCount: number): bigint {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 255) {
    throw new RangeError(`shard count must be an integer in [1, 255], got ${shardCount}`);
  }
  const firstByte = addressEncoder.encode(seller)[0] ?? 0;
  return BigInt(firstByte % shardCount);
}
