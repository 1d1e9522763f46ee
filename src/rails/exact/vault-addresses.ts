import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { shareOnceFulfilled } from "../../platform/cache/share-once-fulfilled";
import { findVaultPda, findVaultSolStoragePda } from "./program/pda";

/** PDA derivations are pure but cost SHA-256 rounds; memoise them per isolate (bounded, settled ones only). */
const MAX_ENTRIES = 20_000;
const memo = new Map<string, Promise<Address>>();

function remember(key: string, derive: () => Promise<Address>): Promise<Address> {
  return (
    memo.get(key) ??
    shareOnceFulfilled(derive(), (derived) => {
      if (memo.size >= MAX_ENTRIES) memo.clear();
      memo.set(key, derived);
    })
  );
}

export function vaultOf(programId: Address, seller: Address): Promise<Address> {
  return remember(`vault|${programId}|${seller}`, async () => (await findVaultPda(programId, seller))[0]);
}

export function vaultSolStorageOf(programId: Address, vault: Address): Promise<Address> {
  return remember(`sol|${programId}|${vault}`, async () => (await findVaultSolStoragePda(programId, vault))[0]);
}

export function vaultTokenAccountOf(vault: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  return associatedTokenAccountOf(vault, mint, tokenProgram);
}

/** The associated token account of any owner (a vault, or a seller's own wallet for a wallet `payTo`). */
export function associatedTokenAccountOf(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  return remember(
    `ata|${owner}|${mint}|${tokenProgram}`,
    async () => (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0],
  );
}
