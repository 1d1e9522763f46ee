import type { Address } from "@solana/kit";
import { address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { type AccountSnapshot, fetchAccounts } from "../../../chain/accounts";
import { parseMint } from "../../../chain/mint";
import { readTokenAccount } from "../../../chain/token-account";
import { SYSTEM_PROGRAM_ADDRESS } from "../../../chain/token-programs";
import type { Config } from "../../../platform/config/load-config";
import {
  decodeSplitVault,
  decodeUniversalSettleConfig,
  type SplitVault,
  type UniversalSettleConfig,
} from "../program/accounts";
import {
  feeShardIndexOf,
  findFeeShardPda,
  findFeeShardSolStoragePda,
  findUniversalSettleConfigPda,
} from "../program/pda";
import { requireUniversalSettle } from "../universal-settle-program";
import { vaultOf, vaultSolStorageOf } from "../vault-addresses";
import type { RailBalance } from "./plan";

/** Rent-exempt minimum of a 0-byte account: (128 + 0) bytes × 3,480 lamports/byte-year × 2 years. */
export const RENT_EXEMPT_MINIMUM_EMPTY_LAMPORTS = 890_880n;
/** How the allowlist and the ledger name native SOL. */
export const NATIVE_SOL_ALLOWLIST_ADDRESS_STRING = "11111111111111111111111111111111";

/** Everything a rail's Sweep needs, read from chain in batches (no call per vault). */
export interface RailAccounts extends RailBalance {
  vault: Address;
  vaultState: SplitVault | null;
  /** SOL rail. */
  solStorage: Address | null;
  /** SPL rail. */
  mint: Address | null;
  tokenProgram: Address | null;
  decimals: number | null;
  vaultAta: Address | null;
  sellerAta: Address | null;
  sellerAtaExists: boolean;
  /** SOL: the fee SOL receiver; SPL: the fee receiver's token account. */
  feeReceiver: Address | null;
  /** SPL: owner of the fee token account (created idempotently when missing). */
  feeReceiverOwner: Address | null;
  feeReceiverExists: boolean;
}

export interface ProgramState {
  programId: Address;
  configAddress: Address;
  config: UniversalSettleConfig | null;
}

/**
 * Reads the vaults of many rails in two rounds of getMultipleAccounts (≤ 100 keys per call): first the Config,
 * vaults, SOL storages and mints; then the token accounts, whose addresses depend on each mint's token program.
 */
export async function readRailAccounts(
  config: Config,
  rails: readonly { wallet: string; rail: string }[],
): Promise<{ program: ProgramState; rails: RailAccounts[] }> {
  const programId = requireUniversalSettle(config);
  const [configAddress] = await findUniversalSettleConfigPda(programId);
  const prepared = await Promise.all(
    rails.map(async ({ wallet, rail }) => {
      const seller = address(wallet);
      const vault = await vaultOf(programId, seller);
      const solStorage = rail === "SOL" ? await vaultSolStorageOf(programId, vault) : null;
      return { wallet, rail, seller, vault, solStorage, mint: rail === "SOL" ? null : address(rail) };
    }),
  );
  const first = await fetchAccounts(config, [
    configAddress,
    ...prepared.flatMap((r) => [r.vault, r.solStorage ?? r.mint!]),
  ]);
  const configAccount = first.get(configAddress);
  const programConfig =
    configAccount && configAccount.owner === programId ? decodeUniversalSettleConfig(configAccount.data) : null;
  const program = { programId, configAddress, config: programConfig };

  const withTokens = await Promise.all(
    prepared.map(async (r) => {
      const vaultAccount = first.get(r.vault);
      const vaultState = vaultAccount && vaultAccount.owner === programId ? decodeSplitVault(vaultAccount.data) : null;
      const mintInfo = r.mint ? parseMintAccount(first.get(r.mint)) : null;
      const tokenProgram = mintInfo?.tokenProgram ?? null;
      const ata = async (owner: Address) =>
        r.mint && tokenProgram ? (await findAssociatedTokenPda({ owner, mint: r.mint, tokenProgram }))[0] : null;
      const feeOwner =
        programConfig && vaultState ? await feeReceiverOwner(program, programConfig, r.seller, r.rail === "SOL") : null;
      return {
        ...r,
        vaultState,
        mintInfo,
        tokenProgram,
        vaultAta: await ata(r.vault),
        sellerAta: await ata(r.seller),
        feeOwner,
        feeAta: feeOwner && r.mint ? await ata(feeOwner) : null,
      };
    }),
  );
  const second = await fetchAccounts(
    config,
    withTokens.flatMap((r) => [r.vaultAta, r.sellerAta, r.feeAta].filter((a): a is Address => a !== null)),
  );

  const accounts = withTokens.map((r): RailAccounts => {
    const minFeeRaw = programConfig
      ? r.rail === "SOL"
        ? programConfig.minFeeAmountLamports
        : programConfig.minFeeAmountRaw
      : 0n;
    const common = {
      wallet: r.wallet,
      rail: r.rail,
      minFeeRaw,
      vault: r.vault,
      vaultState: r.vaultState,
      solStorage: r.solStorage,
      mint: r.mint,
      tokenProgram: r.tokenProgram,
      decimals: r.mintInfo?.decimals ?? null,
      vaultAta: r.vaultAta,
      sellerAta: r.sellerAta,
      sellerAtaExists: r.sellerAta ? Boolean(second.get(r.sellerAta)) : true,
      feeReceiver: r.rail === "SOL" ? r.feeOwner : r.feeAta,
      feeReceiverOwner: r.feeOwner,
      feeReceiverExists: r.feeAta ? Boolean(second.get(r.feeAta)) : true,
    };
    const unreadable = (problem: string) => ({ ...common, availableRaw: null, problem });
    if (!programConfig) return unreadable(`UniversalSettle Config ${configAddress} is missing or unreadable`);
    if (!r.vaultState) return unreadable(`vault ${r.vault} does not exist`);
    if (r.vaultState.seller !== r.seller) return unreadable(`vault ${r.vault} belongs to another seller`);
    if (r.rail === "SOL") {
      const storage = first.get(r.solStorage!);
      if (!storage || storage.owner !== SYSTEM_PROGRAM_ADDRESS)
        return unreadable(`vault SOL storage ${r.solStorage} does not exist`);
      return { ...common, availableRaw: spendableLamports(storage.lamports), problem: null };
    }
    if (!r.mintInfo) return unreadable(`${r.rail} is not a token mint`);
    const amount = tokenAmount(second.get(r.vaultAta!));
    if (amount === null) return unreadable(`vault token account ${r.vaultAta} does not exist`);
    return {
      ...common,
      availableRaw: amount,
      problem: null,
      missingSellerTokenAccount: common.sellerAtaExists ? null : r.sellerAta,
    };
  });
  return { program, rails: accounts };
}

export function spendableLamports(storageLamports: bigint): bigint {
  return storageLamports > RENT_EXEMPT_MINIMUM_EMPTY_LAMPORTS
    ? storageLamports - RENT_EXEMPT_MINIMUM_EMPTY_LAMPORTS
    : 0n;
}

function parseMintAccount(account: AccountSnapshot | null | undefined) {
  return account ? parseMint(account) : null;
}

/** The raw amount of an SPL / Token-2022 token account, or null when absent. */
function tokenAmount(account: AccountSnapshot | null | undefined): bigint | null {
  return account ? (readTokenAccount(account.data)?.amount ?? null) : null;
}

/**
 * Who receives the fee (docs/universal-settle-abi.md "Fee receiver"): Config.fee_destination when sharding is off; else
 * the seller's shard (its SOL storage for SOL; for SPL the shard PDA, whose ATA receives).
 */
async function feeReceiverOwner(
  program: ProgramState,
  config: UniversalSettleConfig,
  seller: Address,
  isSol: boolean,
): Promise<Address> {
  if (!config.useFeeShard) return config.feeDestination;
  const [shard] = await findFeeShardPda(program.programId, feeShardIndexOf(seller, config.shardCount));
  return isSol ? (await findFeeShardSolStoragePda(program.programId, shard))[0] : shard;
}
