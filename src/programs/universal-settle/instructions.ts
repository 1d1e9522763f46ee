/**
 * UniversalSettle instructions used by the facilitator (docs/universal-settle-abi.md "Instructions"):
 * data codecs (encoders for building, decoders so the verifier can recognise them) and kit
 * Instruction builders with the documented account order and roles. Builders are synchronous and
 * take every address explicitly; derive PDAs with ./pda.ts first.
 */
import {
  getAddressDecoder,
  getAddressEncoder,
  getBooleanDecoder,
  getBooleanEncoder,
  getStructDecoder,
  getStructEncoder,
  getU64Decoder,
  getU64Encoder,
  padRightDecoder,
  padRightEncoder,
  type Address,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import {
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  createSafeDecode,
  getDiscriminatedDecoder,
  getDiscriminatedEncoder,
} from "../discriminated-codec";
import {
  readonlyAccount,
  signerAccount,
  writableAccount,
  type AddressOrSigner,
  type ProgramInstruction,
} from "../instruction-accounts";
import { ZERO_ADDRESS } from "../zero-address";

/** Byte 0 of UniversalSettle instruction data (admin instructions 100..112 are not modelled). */
export const UNIVERSAL_SETTLE_INSTRUCTION = {
  SWEEP: 0,
  CREATE_VAULT: 1,
} as const;
export const SWEEP_DISCRIMINATOR = UNIVERSAL_SETTLE_INSTRUCTION.SWEEP;
export const CREATE_VAULT_DISCRIMINATOR = UNIVERSAL_SETTLE_INSTRUCTION.CREATE_VAULT;

export const CREATE_VAULT_INSTRUCTION_DATA_SIZE = 33;
export const SWEEP_INSTRUCTION_DATA_SIZE = 49;

/** Sweep `amount` meaning "everything the vault holds". */
export const SWEEP_ALL_AMOUNT = 0n;
/** The mint field of a SOL sweep: 32 zero bytes. */
export const SWEEP_SOL_MINT: Address = ZERO_ADDRESS;

// ---------------------------------------------------------------------------------------------------
// CreateVault: [1] ‖ seller (32)

export interface CreateVaultInstructionData {
  seller: Address;
}

const createVaultDataEncoder: FixedSizeEncoder<CreateVaultInstructionData> = getDiscriminatedEncoder(
  CREATE_VAULT_DISCRIMINATOR,
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  getStructEncoder([["seller", getAddressEncoder()]]),
);
const createVaultDataDecoder: FixedSizeDecoder<CreateVaultInstructionData> = getDiscriminatedDecoder(
  "CreateVault instruction data",
  CREATE_VAULT_DISCRIMINATOR,
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  getStructDecoder([["seller", getAddressDecoder()]]),
);

export function getCreateVaultInstructionDataEncoder(): FixedSizeEncoder<CreateVaultInstructionData> {
  return createVaultDataEncoder;
}
export function getCreateVaultInstructionDataDecoder(): FixedSizeDecoder<CreateVaultInstructionData> {
  return createVaultDataDecoder;
}
export const decodeCreateVaultInstructionData: (
  data: ReadonlyUint8Array,
) => CreateVaultInstructionData | null = createSafeDecode(createVaultDataDecoder, CREATE_VAULT_DISCRIMINATOR);

export interface CreateVaultInstructionInput {
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

/** Accounts: payer (s,w), vault PDA (w), vault SOL storage PDA (w), System program. */
export function getCreateVaultInstruction(input: CreateVaultInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: [
      signerAccount(input.payer, true),
      writableAccount(input.vault),
      writableAccount(input.solStorage),
      readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
    ],
    data: createVaultDataEncoder.encode({ seller: input.seller }),
  };
}

// ---------------------------------------------------------------------------------------------------
// Sweep: [0] ‖ mint (32) ‖ amount u64 ‖ is_sol u8 ‖ 7 zero bytes

export interface SweepInstructionData {
  /** Zero address for SOL. */
  mint: Address;
  /** Raw units (lamports for SOL); 0 = everything. */
  amount: bigint;
  isSol: boolean;
}

const sweepDataEncoder: FixedSizeEncoder<SweepInstructionData> = getDiscriminatedEncoder(
  SWEEP_DISCRIMINATOR,
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  getStructEncoder([
    ["mint", getAddressEncoder()],
    ["amount", getU64Encoder()],
    ["isSol", padRightEncoder(getBooleanEncoder(), 7)],
  ]),
);
const sweepDataDecoder: FixedSizeDecoder<SweepInstructionData> = getDiscriminatedDecoder(
  "Sweep instruction data",
  SWEEP_DISCRIMINATOR,
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  getStructDecoder([
    ["mint", getAddressDecoder()],
    ["amount", getU64Decoder()],
    ["isSol", padRightDecoder(getBooleanDecoder(), 7)],
  ]),
);

export function getSweepInstructionDataEncoder(): FixedSizeEncoder<SweepInstructionData> {
  return sweepDataEncoder;
}
export function getSweepInstructionDataDecoder(): FixedSizeDecoder<SweepInstructionData> {
  return sweepDataDecoder;
}
export const decodeSweepInstructionData: (data: ReadonlyUint8Array) => SweepInstructionData | null =
  createSafeDecode(sweepDataDecoder, SWEEP_DISCRIMINATOR);

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

export interface SweepSolInstructionInput extends SweepInstructionCommonInput {
  kind: "sol";
  /** The vault's SOL storage PDA. */
  solStorage: Address;
  /** The seller wallet (SplitVault.seller). */
  seller: Address;
  /** Config.fee_destination, or the seller's fee shard SOL storage PDA when sharding is on. */
  feeReceiver: Address;
}

export interface SweepSplInstructionInput extends SweepInstructionCommonInput {
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

export type SweepInstructionInput = SweepSolInstructionInput | SweepSplInstructionInput;

/**
 * SOL accounts: payer (s,w), vault (w), config, vault SOL storage (w), seller (w), fee SOL receiver (w), System.
 * SPL accounts: payer (s,w), vault (w), config, vault ATA (w), seller ATA (w), fee ATA (w), mint, token program.
 */
export function getSweepInstruction(input: SweepInstructionInput): ProgramInstruction {
  const head = [signerAccount(input.payer, true), writableAccount(input.vault), readonlyAccount(input.config)];
  if (input.kind === "sol") {
    return {
      programAddress: input.programId,
      accounts: [
        ...head,
        writableAccount(input.solStorage),
        writableAccount(input.seller),
        writableAccount(input.feeReceiver),
        readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
      ],
      data: sweepDataEncoder.encode({ mint: SWEEP_SOL_MINT, amount: input.amount, isSol: true }),
    };
  }
  if (input.mint === ZERO_ADDRESS) throw new RangeError("an SPL sweep needs a real mint, not the zero address");
  return {
    programAddress: input.programId,
    accounts: [
      ...head,
      writableAccount(input.vaultAta),
      writableAccount(input.sellerAta),
      writableAccount(input.feeReceiverAta),
      readonlyAccount(input.mint),
      readonlyAccount(input.tokenProgram),
    ],
    data: sweepDataEncoder.encode({ mint: input.mint, amount: input.amount, isSol: false }),
  };
}

