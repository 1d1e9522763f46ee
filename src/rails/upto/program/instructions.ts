/**
 * Payment-channels instructions (program source: `program/payment_channels/src/instructions/mod.rs`
 * and one file per instruction; IDL `program/payment_channels/idl/payment_channels.json`;
 * docs/payment-channels.md), described ONCE as data in `PAYMENT_CHANNELS_INSTRUCTIONS`:
 * discriminator (byte 0), body codec (Borsh-compatible, little-endian; vectors have a u32 length)
 * and the ordered account slots. Data codecs and kit Instruction builders are derived from it by
 * ../instruction-table.ts, like the other programs' clients.
 *
 * Builders are synchronous and take every address explicitly; derive the channel, the event
 * authority and the ATAs first (./pda.ts, @solana-program/token).
 */
import {
  type Address,
  type Codec,
  getAddressCodec,
  getArrayCodec,
  getStructCodec,
  getU8Codec,
  getU16Codec,
  getU32Codec,
  getU64Codec,
  getUnitCodec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import {
  type AddressOrSigner,
  type ProgramInstruction,
  writableAccount,
} from "../../../chain/program/instruction-accounts";
import { type InstructionDataCodec, instructionSpec, tableBuilder } from "../../../chain/program/instruction-table";

export type { InstructionDataCodec } from "../../../chain/program/instruction-table";

/** Byte 0 of payment-channels instruction data. */
export const PAYMENT_CHANNELS_INSTRUCTION = {
  OPEN: 1,
  SETTLE: 2,
  TOP_UP: 3,
  SETTLE_AND_SEAL: 4,
  REQUEST_CLOSE: 5,
  SEAL: 6,
  DISTRIBUTE: 7,
  WITHDRAW_PAYER: 8,
  RECLAIM: 9,
} as const;

export const INSTRUCTIONS_SYSVAR_ADDRESS = "Sysvar1nstructions1111111111111111111111111" as Address;
export const RENT_SYSVAR_ADDRESS = "SysvarRent111111111111111111111111111111111" as Address;

/** At most this many split recipients per channel (distribution.rs). */
export const MAX_DISTRIBUTION_RECIPIENTS = 32;
/** Split shares are basis points of the settled amount; the payee gets 10_000 − Σbps. */
export const BPS_DENOMINATOR = 10_000;

export interface DistributionEntry {
  recipient: Address;
  /** Non-zero; the entries' sum is at most BPS_DENOMINATOR. */
  bps: number;
}

export interface OpenInstructionData {
  salt: bigint;
  /** Base units moved from the payer's ATA into the channel's escrow ATA. */
  deposit: bigint;
  /** Seconds from RequestClose until anyone may Seal. */
  gracePeriod: number;
  /** A recent slot (at most 1,500 behind the chain); also a seed of the channel address. */
  openSlot: bigint;
  recipients: readonly DistributionEntry[];
}

export interface DistributeInstructionData {
  /** The same split that was committed at Open (its sha256 is in the channel). */
  recipients: readonly DistributionEntry[];
}

export interface TopUpInstructionData {
  amount: bigint;
}

export interface SettleAndSealInstructionData {
  /** 1: a voucher is in the Ed25519 instruction just before; 0: seal at the current watermark. */
  hasVoucher: number;
}

// ===================================================================================================
// The table

const distributionEntry = getStructCodec([
  ["recipient", getAddressCodec()],
  ["bps", getU16Codec()],
]);
// kit's array encoder reads the array without mutating it; the cast only lets callers pass readonly arrays.
const recipients = getArrayCodec(distributionEntry, { size: getU32Codec() }) as unknown as Codec<
  readonly DistributionEntry[],
  DistributionEntry[]
>;

const INSTRUCTIONS_SYSVAR = ["instructionsSysvar", "r", INSTRUCTIONS_SYSVAR_ADDRESS] as const;

const I = PAYMENT_CHANNELS_INSTRUCTION;
const PAYMENT_CHANNELS_INSTRUCTIONS = {
  open: instructionSpec(
    "Open",
    I.OPEN,
    getStructCodec([
      ["salt", getU64Codec()],
      ["deposit", getU64Codec()],
      ["gracePeriod", getU32Codec()],
      ["openSlot", getU64Codec()],
      ["recipients", recipients],
    ]),
    {
      only: [
        ["payer", "sw"],
        ["rentPayer", "sw"],
        ["payee", "r"],
        ["mint", "r"],
        ["authorizedSigner", "r"],
        ["channel", "w"],
        ["payerTokenAccount", "w"],
        ["channelTokenAccount", "w"],
        ["tokenProgram", "r"],
        ["systemProgram", "r", SYSTEM_PROGRAM_ADDRESS],
        ["rent", "r", RENT_SYSVAR_ADDRESS],
        ["associatedTokenProgram", "r", ASSOCIATED_TOKEN_PROGRAM_ADDRESS],
        ["eventAuthority", "r"],
        ["programId", "r"],
      ],
    },
  ),
  settle: instructionSpec("Settle", I.SETTLE, getUnitCodec(), { only: [["channel", "w"], INSTRUCTIONS_SYSVAR] }),
  topUp: instructionSpec("TopUp", I.TOP_UP, getStructCodec([["amount", getU64Codec()]]), {
    only: [
      ["payer", "sw"],
      ["channel", "w"],
      ["payerTokenAccount", "w"],
      ["channelTokenAccount", "w"],
      ["mint", "r"],
      ["tokenProgram", "r"],
    ],
  }),
  settleAndSeal: instructionSpec("SettleAndSeal", I.SETTLE_AND_SEAL, getStructCodec([["hasVoucher", getU8Codec()]]), {
    only: [["payee", "s"], ["channel", "w"], INSTRUCTIONS_SYSVAR],
  }),
  requestClose: instructionSpec("RequestClose", I.REQUEST_CLOSE, getUnitCodec(), {
    only: [
      ["payer", "s"],
      ["channel", "w"],
    ],
  }),
  seal: instructionSpec("Seal", I.SEAL, getUnitCodec(), { only: [["channel", "w"]] }),
  distribute: instructionSpec("Distribute", I.DISTRIBUTE, getStructCodec([["recipients", recipients]]), {
    only: [
      ["channel", "w"],
      ["payer", "w"],
      ["rentPayer", "w"],
      ["channelTokenAccount", "w"],
      ["payerTokenAccount", "w"],
      ["payeeTokenAccount", "w"],
      ["treasuryTokenAccount", "w"],
      ["mint", "r"],
      ["tokenProgram", "r"],
      ["eventAuthority", "r"],
      ["programId", "r"],
    ],
  }),
  withdrawPayer: instructionSpec("WithdrawPayer", I.WITHDRAW_PAYER, getUnitCodec(), {
    only: [
      ["payer", "s"],
      ["channel", "w"],
      ["channelTokenAccount", "w"],
      ["payerTokenAccount", "w"],
      ["mint", "r"],
      ["tokenProgram", "r"],
    ],
  }),
  reclaim: instructionSpec("Reclaim", I.RECLAIM, getUnitCodec(), {
    only: [
      ["channel", "w"],
      ["rentPayer", "w"],
    ],
  }),
} as const;
const build = tableBuilder(PAYMENT_CHANNELS_INSTRUCTIONS);

// ===================================================================================================
// Data codecs

export const getOpenInstructionDataCodec = (): InstructionDataCodec<OpenInstructionData> =>
  PAYMENT_CHANNELS_INSTRUCTIONS.open.data;
export const getDistributeInstructionDataCodec = (): InstructionDataCodec<DistributeInstructionData> =>
  PAYMENT_CHANNELS_INSTRUCTIONS.distribute.data;
export const getSettleAndSealInstructionDataCodec = (): InstructionDataCodec<SettleAndSealInstructionData> =>
  PAYMENT_CHANNELS_INSTRUCTIONS.settleAndSeal.data;
export const getTopUpInstructionDataCodec = (): InstructionDataCodec<TopUpInstructionData> =>
  PAYMENT_CHANNELS_INSTRUCTIONS.topUp.data;

/** The preimage Open hashes into Channel.distributionHash: u32 LE count ‖ (recipient ‖ bps u16 LE)*. */
export function encodeDistributionPreimage(entries: readonly DistributionEntry[]): ReadonlyUint8Array {
  return recipients.encode(entries);
}

// ===================================================================================================
// Builders

interface ProgramInput {
  programId: Address;
}

export interface OpenInput extends ProgramInput, OpenInstructionData {
  /** Signs the deposit transfer (the buyer). */
  payer: AddressOrSigner;
  /** Pays the channel and escrow ATA rent and gets it back at the end (may be the payer). */
  rentPayer: AddressOrSigner;
  payee: Address;
  mint: Address;
  authorizedSigner: Address;
  channel: Address;
  payerTokenAccount: Address;
  channelTokenAccount: Address;
  tokenProgram: Address;
  eventAuthority: Address;
}

export function getOpenInstruction(input: OpenInput): ProgramInstruction {
  return build("open", "only", input, input);
}

export interface SettleInput extends ProgramInput {
  channel: Address;
}

/** Permissionless; needs the Ed25519 voucher instruction immediately before it. */
export function getSettleInstruction(input: SettleInput): ProgramInstruction {
  return build("settle", "only", input, undefined);
}

export interface TopUpInput extends ProgramInput, TopUpInstructionData {
  payer: AddressOrSigner;
  channel: Address;
  payerTokenAccount: Address;
  channelTokenAccount: Address;
  mint: Address;
  tokenProgram: Address;
}

export function getTopUpInstruction(input: TopUpInput): ProgramInstruction {
  return build("topUp", "only", input, input);
}

export interface SettleAndSealInput extends ProgramInput, SettleAndSealInstructionData {
  payee: AddressOrSigner;
  channel: Address;
}

/** With hasVoucher = 1 it needs the Ed25519 voucher instruction immediately before it. */
export function getSettleAndSealInstruction(input: SettleAndSealInput): ProgramInstruction {
  return build("settleAndSeal", "only", input, input);
}

export interface RequestCloseInput extends ProgramInput {
  payer: AddressOrSigner;
  channel: Address;
}

export function getRequestCloseInstruction(input: RequestCloseInput): ProgramInstruction {
  return build("requestClose", "only", input, undefined);
}

export interface SealInput extends ProgramInput {
  channel: Address;
}

/** Permissionless, once the grace period after RequestClose has passed. */
export function getSealInstruction(input: SealInput): ProgramInstruction {
  return build("seal", "only", input, undefined);
}

export interface DistributeInput extends ProgramInput, DistributeInstructionData {
  channel: Address;
  payer: Address;
  rentPayer: Address;
  channelTokenAccount: Address;
  payerTokenAccount: Address;
  payeeTokenAccount: Address;
  /** ATA(treasury owner, mint): receives rounding dust and redirected payouts. */
  treasuryTokenAccount: Address;
  mint: Address;
  tokenProgram: Address;
  eventAuthority: Address;
  /** ATA of each entry's recipient, in the order of `recipients`. */
  recipientTokenAccounts: readonly Address[];
}

/** Permissionless. From SEALED it also refunds the payer, sweeps dust to the treasury and closes. */
export function getDistributeInstruction(input: DistributeInput): ProgramInstruction {
  if (input.recipientTokenAccounts.length !== input.recipients.length) {
    throw new TypeError("one recipient token account per distribution entry");
  }
  return build("distribute", "only", input, input, input.recipientTokenAccounts.map(writableAccount));
}

export interface WithdrawPayerInput extends ProgramInput {
  payer: AddressOrSigner;
  channel: Address;
  channelTokenAccount: Address;
  payerTokenAccount: Address;
  mint: Address;
  tokenProgram: Address;
}

/** The payer's one-shot refund of deposit − settled, in SEALED. */
export function getWithdrawPayerInstruction(input: WithdrawPayerInput): ProgramInstruction {
  return build("withdrawPayer", "only", input, undefined);
}

export interface ReclaimInput extends ProgramInput {
  channel: Address;
  rentPayer: Address;
}

/** Permissionless: frees a DISTRIBUTED channel once the slot window has passed. */
export function getReclaimInstruction(input: ReclaimInput): ProgramInstruction {
  return build("reclaim", "only", input, undefined);
}
