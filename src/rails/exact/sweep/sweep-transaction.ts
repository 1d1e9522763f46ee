import type { Instruction } from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { LAMPORTS_PER_SIGNATURE } from "../../../chain/network-fee";
import type { Config } from "../../../platform/config/load-config";
import { getSweepInstruction, SWEEP_ALL_AMOUNT } from "../program/instructions";
import type { ProgramState, RailAccounts } from "./vault-balances";

/** Network fee of a sweep: one signature (the fee payer), no priority fee. */
export const SWEEP_NETWORK_FEE_LAMPORTS = LAMPORTS_PER_SIGNATURE;
/**
 * Rent-exempt minimum of a token account: (128 + 165 bytes) × 6,960; Token-2022 ATAs carry ImmutableOwner (+5 bytes).
 */
const TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
const TOKEN_2022_ACCOUNT_RENT_LAMPORTS = 2_074_080n;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

export interface SweepTransactionPlan {
  instructions: Instruction[];
  /** What the fee payer pays if it lands: the network fee plus the rent of a fee token account it creates. */
  lamportsIfLanded: bigint;
}

/**
 * One Sweep of "everything" (amount 0, so a payment landing meanwhile is swept too), paid by the facilitator.
 * The seller's token account is never created here: the plan skips a rail without it
 * (`seller_token_account_missing`), since its rent would go to an account the seller can close and reclaim.
 * The one account a sweep may create is the fee receiver's token account for the mint: its owner is the
 * operator's fee destination (or a fee shard of the program), which no seller can close, so that rent is paid at
 * most once per (fee receiver, mint) and stays with the operator.
 */
export function buildSweepTransaction(config: Config, program: ProgramState, rail: RailAccounts): SweepTransactionPlan {
  const common = {
    programId: program.programId,
    payer: config.feePayer,
    vault: rail.vault,
    config: program.configAddress,
    amount: SWEEP_ALL_AMOUNT,
  };
  if (rail.rail === "SOL") {
    return {
      instructions: [
        getSweepInstruction({
          ...common,
          kind: "sol",
          solStorage: rail.solStorage!,
          seller: rail.vaultState!.seller,
          feeReceiver: rail.feeReceiver!,
        }),
      ],
      lamportsIfLanded: SWEEP_NETWORK_FEE_LAMPORTS,
    };
  }
  if (!rail.sellerAtaExists)
    throw new Error(
      `sweep of ${rail.wallet} ${rail.rail}: the seller's token account is missing (the plan skips such rails)`,
    );
  const instructions: Instruction[] = [];
  let rent = 0n;
  if (!rail.feeReceiverExists) {
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer: config.feePayer,
        ata: rail.feeReceiver!,
        owner: rail.feeReceiverOwner!,
        mint: rail.mint!,
        tokenProgram: rail.tokenProgram!,
      }),
    );
    rent += rail.tokenProgram === TOKEN_PROGRAM ? TOKEN_ACCOUNT_RENT_LAMPORTS : TOKEN_2022_ACCOUNT_RENT_LAMPORTS;
  }
  instructions.push(
    getSweepInstruction({
      ...common,
      kind: "spl",
      vaultAta: rail.vaultAta!,
      sellerAta: rail.sellerAta!,
      feeReceiverAta: rail.feeReceiver!,
      mint: rail.mint!,
      tokenProgram: rail.tokenProgram!,
    }),
  );
  return { instructions, lamportsIfLanded: SWEEP_NETWORK_FEE_LAMPORTS + rent };
}
