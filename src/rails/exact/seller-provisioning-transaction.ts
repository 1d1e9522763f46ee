import { type Address, type Blockhash, createNoopSigner, type Instruction } from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { compileUnsignedTransaction } from "../../chain/unsigned-transaction";
import { getCreateVaultInstruction } from "./program/instructions";

/** What the activation transaction has to create; pure input, no I/O. */
export interface ProvisionPlan {
  seller: Address;
  programId: Address;
  vaultPda: Address;
  solStoragePda: Address;
  createVault: boolean;
  /** The vault's token account to create (SPL only). */
  vaultTokenAccount: { ata: Address; mint: Address; tokenProgram: Address } | null;
  blockhash: { blockhash: Blockhash; lastValidBlockHeight: bigint };
}

/**
 * The unsigned sovereign activation transaction: the seller is fee payer AND CreateVault payer (that is what makes
 * the program mark the vault sovereign), so the seller's one signature (index 0) completes it. The token account
 * uses CreateIdempotent so a racing just-in-time provisioning cannot make it fail.
 */
export function buildProvisionTransaction(plan: ProvisionPlan): string {
  // A no-op signer marks the seller as a required signer without holding a key: the seller's wallet signs.
  const seller = createNoopSigner(plan.seller);
  const instructions: Instruction[] = [];
  if (plan.createVault) {
    instructions.push(
      getCreateVaultInstruction({
        programId: plan.programId,
        payer: seller,
        vault: plan.vaultPda,
        solStorage: plan.solStoragePda,
        seller: plan.seller,
      }),
    );
  }
  if (plan.vaultTokenAccount) {
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer: seller,
        ata: plan.vaultTokenAccount.ata,
        owner: plan.vaultPda,
        mint: plan.vaultTokenAccount.mint,
        tokenProgram: plan.vaultTokenAccount.tokenProgram,
      }),
    );
  }
  return compileUnsignedTransaction({ feePayer: plan.seller, blockhash: plan.blockhash, instructions }).transaction;
}
