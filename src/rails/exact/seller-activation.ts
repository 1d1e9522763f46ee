import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { type AccountSnapshot, fetchAccounts } from "../../chain/accounts";
import { parseMint } from "../../chain/mint";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { SellerAsset } from "../../directory/sellers/seller-asset";
import type { Config } from "../../platform/config/load-config";
import { badRequest } from "../../platform/errors/catalogue";
import { deriveExactAddresses, readVault } from "./seller-view";
import { classifyVaultTokenAccount } from "./vault-token-account";

export interface ActivationState {
  vaultPda: Address;
  /** Null when activation has landed; otherwise what is still missing, for the 409 message. */
  missing: string | null;
}

/**
 * Whether the seller's rail for `asset` exists on chain (docs/facilitator-spec.md §3.1: register needs activation to
 * have landed): the vault, and for SPL also the vault's token account. One batched read; both token-program ATA
 * candidates go in it because the owning program is only known once the mint is read.
 */
export async function readActivation(config: Config, wallet: Address, asset: SellerAsset): Promise<ActivationState> {
  const exact = await deriveExactAddresses(config, wallet);
  const candidates = asset.isNativeSol ? null : await tokenAccountCandidates(exact.vaultPda, asset.mint);
  const accounts = await fetchAccounts(config, [exact.vaultPda, ...(candidates ? [asset.mint, ...candidates] : [])]);
  if (readVault(accounts, exact) === null) {
    return { vaultPda: exact.vaultPda, missing: `the vault ${exact.vaultPda} does not exist on chain yet` };
  }
  if (!candidates) return { vaultPda: exact.vaultPda, missing: null };
  return {
    vaultPda: exact.vaultPda,
    missing: tokenAccountMissing(accounts, candidates, asset, exact.vaultPda, "vault's"),
  };
}

/**
 * The wallet `payTo` form's activation (src/rails/exact/wallet-seller-view.ts): payments land in the wallet's own
 * associated token account for the asset, which this facilitator never creates, so registering needs it to exist.
 * Native SOL has no such form (it is paid only into a vault). Null when it exists, else what is missing.
 */
export async function readWalletActivation(
  config: Config,
  wallet: Address,
  asset: SellerAsset,
): Promise<string | null> {
  if (asset.isNativeSol) {
    throw badRequest(
      "asset: the wallet payTo form is paid in a token (TransferChecked to the wallet's token account); native SOL " +
        "is paid only into a vault",
    );
  }
  const candidates = await tokenAccountCandidates(wallet, asset.mint);
  const accounts = await fetchAccounts(config, [asset.mint, ...candidates]);
  return tokenAccountMissing(accounts, candidates, asset, wallet, "wallet's");
}

/** The owner's ATA for the mint under SPL Token and under Token-2022, in that order. */
function tokenAccountCandidates(owner: Address, mint: Address): Promise<Address[]> {
  return Promise.all(
    [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map(
      async (tokenProgram) => (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0],
    ),
  );
}

function tokenAccountMissing(
  accounts: ReadonlyMap<Address, AccountSnapshot | null>,
  candidates: Address[],
  asset: SellerAsset,
  owner: Address,
  whose: string,
): string | null {
  const mintAccount = accounts.get(asset.mint) ?? null;
  const mint = mintAccount === null ? null : parseMint(mintAccount);
  if (mint === null)
    throw badRequest(`asset: ${asset.mint} is not an initialized SPL Token or Token-2022 mint on this network`);
  const ata = mint.tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? candidates[1]! : candidates[0]!;
  // Lamports sent to the address do not make it a token account: only an initialized account of the owner counts.
  if (
    classifyVaultTokenAccount(accounts.get(ata), { tokenProgram: mint.tokenProgram, mint: asset.mint, owner }) !==
    "ready"
  ) {
    return `the ${whose} ${asset.label} token account ${ata} does not exist on chain yet`;
  }
  return null;
}
