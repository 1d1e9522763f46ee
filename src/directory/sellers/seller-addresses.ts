import type { Address } from "@solana/kit";
import { requireUniversalSettle } from "../../platform/config/rail-switches";
import type { Config } from "../../platform/config/load-config";
import { findUniversalSettleConfigPda } from "../../rails/exact/program/pda";
import { findBankPda, findEscrowPda, findEscrowSolStoragePda, NATIVE_SOL_ESCROW_MINT } from "../../rails/sla-escrow/program/pda";
import { vaultOf, vaultSolStorageOf } from "../../rails/exact/vault-addresses";

/** Every address a seller's rails are made of; pure derivations, no chain access. */
export interface ExactAddresses {
  programId: Address;
  configPda: Address;
  vaultPda: Address;
  solStoragePda: Address;
}

export interface EscrowAssetAddresses {
  asset: string;
  mint: Address;
  escrowPda: Address;
  solStoragePda: Address;
}

export async function deriveExactAddresses(config: Config, wallet: Address): Promise<ExactAddresses> {
  const programId = requireUniversalSettle(config);
  const [vaultPda, [configPda]] = await Promise.all([vaultOf(programId, wallet), findUniversalSettleConfigPda(programId)]);
  return { programId, configPda, vaultPda, solStoragePda: await vaultSolStorageOf(programId, vaultPda) };
}

export async function deriveBankPda(config: Config): Promise<Address> {
  return (await findBankPda(config.programs.slaEscrow))[0];
}

/** The escrow of one mint under this facilitator's bank (the `sla-escrow` payTo is shared by every seller). */
export async function deriveEscrowAddresses(config: Config, bank: Address, asset: string, mint: Address): Promise<EscrowAssetAddresses> {
  const programId = config.programs.slaEscrow;
  const escrowMint = asset === "SOL" ? NATIVE_SOL_ESCROW_MINT : mint;
  const [escrowPda] = await findEscrowPda(programId, escrowMint, bank);
  const [solStoragePda] = await findEscrowSolStoragePda(programId, escrowMint, bank, escrowPda);
  return { asset, mint: escrowMint, escrowPda, solStoragePda };
}
