/**
 * UniversalSettle instructions used by the facilitator (docs/universal-settle-abi.md "Instructions"),
 * described ONCE as data in `UNIVERSAL_SETTLE_INSTRUCTIONS` (discriminator, body fields, account slots
 * per variant); the data encoding and the kit Instruction builders are derived by ../instruction-table.ts,
 * like the other programs' clients. Builders are synchronous and take every address explicitly; derive
 * PDAs with ./pda.ts first.
 */
import {
  type Address,
  getAddressCodec,
  getBooleanCodec,
  getStructCodec,
  getU64Codec,
  padRightCodec,
} from "@solana/kit";
import { SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import type { AddressOrSigner, ProgramInstruction } from "../../../chain/program/instruction-accounts";
import { instructionSpec, tableBuilder } from "../../../chain/program/instruction-table";
import { ZERO_ADDRESS } from "../../../chain/program/zero-address";

/** Byte 0 of UniversalSettle instruction data (admin instructions 100..112 are not modelled). */
export const UNIVERSAL_SETTLE_INSTRUCTION = {
  SWEEP: 0,
  CREATE_VAULT: 1,
} as const;

/** Sweep `amount` meaning "everything the vault holds". */
export const SWEEP_ALL_AMOUNT = 0n;

const I = UNIVERSAL_SETTLE_INSTRUCTION;
const UNIVERSAL_SETTLE_INSTRUCTIONS = {
  /** [0] ‖ mint (32; zero for SOL) ‖ amount u64 (0 = everything) ‖ is_sol u8 ‖ 7 zero bytes. */
  sweep: instructionSpec(
    "Sweep",
    I.SWEEP,
    getStructCodec([
      ["mint", getAddressCodec()],
      ["amount", getU64Codec()],
      ["isSol", padRightCodec(getBooleanCodec(), 7)],
    ]),
    {
      sol: [
        ["payer", "sw"],
        ["vault", "w"],
        ["config", "r"],
        ["solStorage", "w"],
        ["seller", "w"],
        ["feeReceiver", "w"],
        ["systemProgram", "r", SYSTEM_PROGRAM_ADDRESS],
      ],
      spl: [
        ["payer", "sw"],
        ["vault", "w"],
        ["config", "r"],
        ["vaultAta", "w"],
        ["sellerAta", "w"],
        ["feeReceiverAta", "w"],
        ["mint", "r"],
        ["tokenProgram", "r"],
      ],
    },
  ),
  /** [1] ‖ seller (32). */
  createVault: instructionSpec("CreateVault", I.CREATE_VAULT, getStructCodec([["seller", getAddressCodec()]]), {
    only: [
      ["payer", "sw"],
      ["vault", "w"],
      ["solStorage", "w"],
      ["systemProgram", "r", SYSTEM_PROGRAM_ADDRESS],
    ],
  }),
} as const;
const build = tableBuilder(UNIVERSAL_SETTLE_INSTRUCTIONS);

interface CreateVaultInstructionInput {
  programId: Address;
  /**
   * Pays the rent. The seller for sovereign activation (the program then marks the vault sovereign),
   * the facilitator for just-in-time provisioning.
   */
  payer: AddressOrSigner;
  vault: Address;
  solStorage: Address;
  seller: Address;
}

export function getCreateVaultInstruction(input: CreateVaultInstructionInput): ProgramInstruction {
  return build("createVault", "only", input, input);
}

interface SweepInstructionCommonInput {
  programId: Address;
  /** Pays the transaction (the facilitator's sweeper). */
  payer: AddressOrSigner;
  vault: Address;
  /** The UniversalSettle Config PDA. */
  config: Address;
  /** Raw units (lamports for SOL); SWEEP_ALL_AMOUNT (0) = everything. */
  amount: bigint;
}

interface SweepSolInstructionInput extends SweepInstructionCommonInput {
  kind: "sol";
  /** The vault's SOL storage PDA. */
  solStorage: Address;
  /** The seller wallet (SplitVault.seller). */
  seller: Address;
  /** Config.fee_destination, or the seller's fee shard SOL storage PDA when sharding is on. */
  feeReceiver: Address;
}

interface SweepSplInstructionInput extends SweepInstructionCommonInput {
  kind: "spl";
  /** ATA(owner = vault PDA, mint, token program). */
  vaultAta: Address;
  sellerAta: Address;
  /** ATA of Config.fee_destination, or of the seller's fee shard PDA when sharding is on. */
  feeReceiverAta: Address;
  mint: Address;
  /** Token or Token-2022, whichever owns the mint. */
  tokenProgram: Address;
}

export function getSweepInstruction(input: SweepSolInstructionInput | SweepSplInstructionInput): ProgramInstruction {
  if (input.kind === "sol")
    return build("sweep", "sol", input, { mint: ZERO_ADDRESS, amount: input.amount, isSol: true });
  if (input.mint === ZERO_ADDRESS) throw new RangeError("an SPL sweep needs a real mint, not the zero address");
  return build("sweep", "spl", input, { mint: input.mint, amount: input.amount, isSol: false });
}
