import type { Address } from "@solana/kit";
import { fromBase64 } from "../../../chain/bytes";
import { rpcCall } from "../../../chain/rpc";
import { readTokenAccount } from "../../../chain/token-account";
import type { Config } from "../../../platform/config/load-config";
import { badRequest } from "../../../platform/errors/catalogue";
import { SELLER_TOKEN_ACCOUNT_MISSING } from "./plan";
import { NATIVE_SOL_ALLOWLIST_ADDRESS_STRING, readRailAccounts } from "./vault-balances";

/**
 * Where the SPL balance is read (pr402's `spl_balance_scope`): the vault's token account, or the seller's own wallet.
 */
export type SplBalanceScope = "vault_ata" | "owner_wallet";

/**
 * pr402's VaultSnapshotResponse (public/openapi.json): amounts are JSON integers, written with all their digits
 * (see `integerJson`), so a u64 client reads them exactly; `*Decimal` repeat them as strings for JavaScript clients.
 */
export interface VaultSnapshot {
  seller: string;
  programId: string;
  splitVaultPda: string;
  vaultSolStoragePda: string;
  vaultExists: boolean;
  isSovereign: boolean | null;
  /** SOL storage lamports above the rent-exempt minimum of a 0-byte account; 0 when the vault does not exist. */
  spendableLamports: bigint;
  spendableLamportsDecimal: string;
  vaultSplAta: string | null;
  splAmountRaw: bigint;
  splAmountRawDecimal: string;
  splDecimals: number | null;
  splBalanceScope: SplBalanceScope;
  /** With ?spl_mint=: the seller's own token account for the mint, which sweeps pay into (never create). */
  sellerSplAta: string | null;
  sellerSplAtaExists: boolean | null;
  /**
   * Why a sweep of the SPL rail would be skipped for want of an account (`seller_token_account_missing`), else null.
   */
  sweepBlockedReason: typeof SELLER_TOKEN_ACCOUNT_MISSING | null;
}

/**
 * A seller's vault balances, read with the sweep engine's batched reader (docs/wire-notes.md "Operator"; pr402 vault
 * snapshot).
 */
export async function buildVaultSnapshot(
  config: Config,
  wallet: Address,
  splMint: Address | undefined,
  options: { splTokenProgram?: Address; splBalanceScope?: SplBalanceScope } = {},
): Promise<VaultSnapshot> {
  const wanted = [{ wallet, rail: "SOL" }];
  const hasMint = splMint !== undefined && splMint !== NATIVE_SOL_ALLOWLIST_ADDRESS_STRING;
  if (hasMint) wanted.push({ wallet, rail: splMint });
  const ownerScope = options.splBalanceScope === "owner_wallet" && hasMint;
  const [{ program, rails }, ownerBalance] = await Promise.all([
    readRailAccounts(config, wanted),
    ownerScope ? ownerTokenBalance(config, wallet, splMint!) : Promise.resolve(null),
  ]);
  const sol = rails[0]!;
  const spl = rails[1];
  if (
    spl &&
    options.splTokenProgram !== undefined &&
    spl.tokenProgram !== null &&
    spl.tokenProgram !== options.splTokenProgram
  ) {
    throw badRequest(
      `spl_token_program: mint ${splMint} belongs to ${spl.tokenProgram}, not ${options.splTokenProgram}`,
    );
  }
  const spendable = sol.availableRaw ?? 0n;
  const splAmount = ownerScope ? ownerBalance! : (spl?.availableRaw ?? 0n);
  return {
    seller: wallet,
    programId: program.programId,
    splitVaultPda: sol.vault,
    vaultSolStoragePda: sol.solStorage!,
    vaultExists: sol.vaultState !== null,
    isSovereign: sol.vaultState?.isSovereign ?? null,
    spendableLamports: spendable,
    spendableLamportsDecimal: spendable.toString(),
    vaultSplAta: spl?.vaultAta ?? null,
    splAmountRaw: splAmount,
    splAmountRawDecimal: splAmount.toString(),
    splDecimals: spl?.decimals ?? null,
    splBalanceScope: ownerScope ? "owner_wallet" : "vault_ata",
    sellerSplAta: spl?.sellerAta ?? null,
    sellerSplAtaExists: spl?.sellerAta ? spl.sellerAtaExists : null,
    sweepBlockedReason: spl?.sellerAta && !spl.sellerAtaExists ? SELLER_TOKEN_ACCOUNT_MISSING : null,
  };
}

/** The seller wallet's own balance of `mint`: the sum over its token accounts (one getTokenAccountsByOwner). */
async function ownerTokenBalance(config: Config, owner: Address, mint: Address): Promise<bigint> {
  const { value } = await rpcCall<{ value: { account: { data: [string, "base64"] } }[] }>(
    config,
    "getTokenAccountsByOwner",
    [owner, { mint }, { encoding: "base64", commitment: "confirmed" }],
  );
  let total = 0n;
  for (const { account } of value) {
    const bytes = fromBase64(account.data[0]);
    total += readTokenAccount(bytes)?.amount ?? 0n;
  }
  return total;
}

/** JSON text in which bigint members are written as integers with every digit (JSON.stringify refuses bigint). */
export function integerJson(value: unknown): string {
  return JSON.stringify(value, (_key, member) =>
    typeof member === "bigint" ? `\u0000bigint:${member}` : member,
  ).replace(/"\\u0000bigint:(\d+)"/g, "$1");
}
