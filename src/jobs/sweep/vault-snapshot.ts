import type { Address } from "@solana/kit";
import type { Config } from "../../config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS_STRING, readRailAccounts } from "./vault-balances";
import { SELLER_TOKEN_ACCOUNT_MISSING } from "./plan";

export interface VaultSnapshot {
  seller: string;
  programId: string;
  splitVaultPda: string;
  vaultSolStoragePda: string;
  vaultExists: boolean;
  isSovereign: boolean | null;
  /** SOL storage lamports above the rent-exempt minimum of a 0-byte account; null when the vault does not exist. */
  spendableLamports: string | null;
  vaultSplAta: string | null;
  splAmountRaw: string | null;
  splDecimals: number | null;
  /** With ?spl_mint=: the seller's own token account for the mint, which sweeps pay into (never create). */
  sellerSplAta: string | null;
  sellerSplAtaExists: boolean | null;
  /** Why a sweep of the SPL rail would be skipped for want of an account (`seller_token_account_missing`), else null. */
  sweepBlockedReason: typeof SELLER_TOKEN_ACCOUNT_MISSING | null;
}

/** A seller's vault balances, read with the sweep engine's batched reader (wire-notes "Operator"). */
export async function buildVaultSnapshot(config: Config, wallet: Address, splMint: Address | undefined): Promise<VaultSnapshot> {
  const wanted = [{ wallet, rail: "SOL" }];
  if (splMint && splMint !== NATIVE_SOL_ALLOWLIST_ADDRESS_STRING) wanted.push({ wallet, rail: splMint });
  const { program, rails } = await readRailAccounts(config, wanted);
  const sol = rails[0]!;
  const spl = rails[1];
  return {
    seller: wallet,
    programId: program.programId,
    splitVaultPda: sol.vault,
    vaultSolStoragePda: sol.solStorage!,
    vaultExists: sol.vaultState !== null,
    isSovereign: sol.vaultState?.isSovereign ?? null,
    spendableLamports: sol.availableRaw === null ? null : sol.availableRaw.toString(),
    vaultSplAta: spl?.vaultAta ?? null,
    splAmountRaw: spl?.availableRaw === null || spl === undefined ? null : spl.availableRaw.toString(),
    splDecimals: spl?.decimals ?? null,
    sellerSplAta: spl?.sellerAta ?? null,
    sellerSplAtaExists: spl?.sellerAta ? spl.sellerAtaExists : null,
    sweepBlockedReason: spl?.sellerAta && !spl.sellerAtaExists ? SELLER_TOKEN_ACCOUNT_MISSING : null,
  };
}
