import type { Instruction } from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import type { Config } from "../../config/load-config";
import { getSweepInstruction, SWEEP_ALL_AMOUNT } from "../../programs/universal-settle/instructions";
import type { ProgramState, RailAccounts } from "./vault-balances";

/** Network fee of a sweep: one signature (the fee payer), no priority fee. */
export const SWEEP_NETWORK_FEE_LAMPORTS = 5_000n;
/** Rent-exempt minimum of a token account: (128 + 165 bytes) × 6,960; Token-2022 ATAs carry ImmutableOwner (+5 bytes). */
const TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
const TOKEN_2022_ACCOUNT_RENT_LAMPORTS = 2_074_080n;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

export interface SweepTransactionPlan {
  instructions: Instruction[];
  /** What the fee payer pays if it lands: the network fee plus the rent of token accounts it creates. */
  lamportsIfLanded: bigint;
}

/**
 * One Sweep of "everything" (amount 0, so a payment landing meanwhile is swept too), paid by the facilitator;
 * the seller's and the fee receiver's token accounts are created idempotently first when they are missing.
 */
export function buildSweepTransaction(config: Config, program: ProgramState, rail: RailAccounts): SweepTransactionPlan {
  const common = { programId: program.programId, payer: config.feePayer, vault: rail.vault, config: program.configAddress, amount: SWEEP_ALL_AMOUNT };
  if (rail.rail === "SOL") {
    return {
      instructions: [getSweepInstruction({ ...common, kind: "sol", solStorage: rail.solStorage!, seller: rail.vaultState!.seller, feeReceiver: rail.feeReceiver! })],
      lamportsIfLanded: SWEEP_NETWORK_FEE_LAMPORTS,
    };
  }
  const instructions: Instruction[] = [];
  let rent = 0n;
  const accountRent = rail.tokenProgram === TOKEN_PROGRAM ? TOKEN_ACCOUNT_RENT_LAMPORTS : TOKEN_2022_ACCOUNT_RENT_LAMPORTS;
  const createAta = (ata: NonNullable<RailAccounts["sellerAta"]>, owner: NonNullable<RailAccounts["feeReceiverOwner"]>) => {
    instructions.push(getCreateAssociatedTokenIdempotentInstruction({ payer: config.feePayer, ata, owner, mint: rail.mint!, tokenProgram: rail.tokenProgram! }));
    rent += accountRent;
  };
  if (!rail.sellerAtaExists) createAta(rail.sellerAta!, rail.vaultState!.seller);
  if (!rail.feeReceiverExists) createAta(rail.feeReceiver!, rail.feeReceiverOwner!);
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
