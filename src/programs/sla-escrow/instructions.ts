/**
 * SLA-Escrow instructions (ABI: sla-escrow.md, "Instructions" and "Account lists"): data codecs
 * (encoders for building; decoders and `parseFundPayment*` so the verifier can recognise a payment)
 * and kit Instruction builders with the documented account order and roles.
 *
 * Builders are synchronous and take every address explicitly; derive PDAs with ./pda.ts first.
 * Codecs check bytes, not policy: TTL bounds, seller_bps ≤ 10,000 and similar rules are exported as
 * constants for the verifier and builders in `schemes/` to enforce.
 */
import {
  getAddressDecoder,
  getAddressEncoder,
  getI64Decoder,
  getI64Encoder,
  getStructDecoder,
  getStructEncoder,
  getU16Decoder,
  getU16Encoder,
  getU64Decoder,
  getU64Encoder,
  getU8Decoder,
  getU8Encoder,
  getUnitDecoder,
  getUnitEncoder,
  padRightDecoder,
  padRightEncoder,
  type AccountMeta,
  type Address,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  type Instruction,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { getBytes32Decoder, getBytes32Encoder } from "../bytes32-codec";
import {
  INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  getDiscriminatedCodecs,
  type DiscriminatedCodecs,
} from "../discriminated-codec";
import {
  readonlyAccount,
  signerAccount,
  writableAccount,
  type AddressOrSigner,
  type ProgramInstruction,
} from "../instruction-accounts";
import { NATIVE_SOL_ESCROW_MINT } from "./pda";

/** Byte 0 of SLA-Escrow instruction data. */
export const SLA_ESCROW_INSTRUCTION = {
  FUND_PAYMENT: 0,
  RELEASE_PAYMENT: 1,
  REFUND_PAYMENT: 2,
  CLOSE_PAYMENT: 3,
  EXTEND_PAYMENT_TTL: 4,
  SUBMIT_DELIVERY: 5,
  CONFIRM_ORACLE: 6,
  APPROVE_DELIVERY: 7,
  FUND_PAYMENT_V2: 8,
  PROPOSE_MUTUAL_ACTION: 9,
  ACCEPT_MUTUAL_ACTION: 10,
  DISPUTE_PAYMENT: 11,
  RESOLVE_WITH_SPLIT: 12,
} as const;
export type SlaEscrowInstructionDiscriminator = (typeof SLA_ESCROW_INSTRUCTION)[keyof typeof SLA_ESCROW_INSTRUCTION];

/** Total data sizes, discriminator included. */
export const FUND_PAYMENT_INSTRUCTION_DATA_SIZE = 177;
export const FUND_PAYMENT_V2_INSTRUCTION_DATA_SIZE = 217;
export const EMPTY_INSTRUCTION_DATA_SIZE = 1; // Release, Refund, Close
export const EXTEND_PAYMENT_TTL_INSTRUCTION_DATA_SIZE = 9;
export const DELIVERY_HASH_INSTRUCTION_DATA_SIZE = 33; // SubmitDelivery, ApproveDelivery
export const CONFIRM_ORACLE_INSTRUCTION_DATA_SIZE = 73;
export const MUTUAL_ACTION_INSTRUCTION_DATA_SIZE = 49; // Propose, Accept
export const DISPUTE_PAYMENT_INSTRUCTION_DATA_SIZE = 33;
export const RESOLVE_WITH_SPLIT_INSTRUCTION_DATA_SIZE = 73;

/** FundPayment `ttl_seconds` bounds enforced by the program. */
export const MIN_PAYMENT_TTL_SECONDS = 60n;
export const MAX_PAYMENT_TTL_SECONDS = 2_592_000n;
/** ResolveWithSplit `seller_bps` upper bound (everything to the seller). */
export const MAX_SELLER_SPLIT_BPS = 10_000;

/** ProposeMutualAction / AcceptMutualAction `action`. */
export const MUTUAL_ACTION = {
  ROTATE_ADJUDICATOR: 1,
  EXTEND_TTL: 2,
} as const;

function instructionDataCodecs<T>(
  name: string,
  discriminator: number,
  bodyEncoder: FixedSizeEncoder<T>,
  bodyDecoder: FixedSizeDecoder<T>,
): DiscriminatedCodecs<T> {
  return getDiscriminatedCodecs(
    `${name} instruction data`,
    discriminator,
    INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
    bodyEncoder,
    bodyDecoder,
  );
}

// ===================================================================================================
// Data codecs

// --- FundPayment (0): seller ‖ mint ‖ oracle_authority ‖ payment_uid ‖ sla_hash ‖ amount u64 ‖ ttl i64

export interface FundPaymentInstructionData {
  seller: Address;
  /** NATIVE_SOL_ESCROW_MINT for SOL. */
  mint: Address;
  oracleAuthority: Address;
  /** 32 raw bytes. */
  paymentUid: ReadonlyUint8Array;
  /** 32 bytes. */
  slaHash: ReadonlyUint8Array;
  /** Base units of the mint (lamports for SOL). */
  amount: bigint;
  ttlSeconds: bigint;
}

const fundPaymentBodyFields = {
  encoder: [
    ["seller", getAddressEncoder()],
    ["mint", getAddressEncoder()],
    ["oracleAuthority", getAddressEncoder()],
    ["paymentUid", getBytes32Encoder()],
    ["slaHash", getBytes32Encoder()],
    ["amount", getU64Encoder()],
    ["ttlSeconds", getI64Encoder()],
  ],
  decoder: [
    ["seller", getAddressDecoder()],
    ["mint", getAddressDecoder()],
    ["oracleAuthority", getAddressDecoder()],
    ["paymentUid", getBytes32Decoder()],
    ["slaHash", getBytes32Decoder()],
    ["amount", getU64Decoder()],
    ["ttlSeconds", getI64Decoder()],
  ],
} as const;

const fundPayment = instructionDataCodecs<FundPaymentInstructionData>(
  "FundPayment",
  SLA_ESCROW_INSTRUCTION.FUND_PAYMENT,
  getStructEncoder(fundPaymentBodyFields.encoder),
  getStructDecoder(fundPaymentBodyFields.decoder),
);
export function getFundPaymentInstructionDataEncoder(): FixedSizeEncoder<FundPaymentInstructionData> {
  return fundPayment.encoder;
}
export function getFundPaymentInstructionDataDecoder(): FixedSizeDecoder<FundPaymentInstructionData> {
  return fundPayment.decoder;
}
export const decodeFundPaymentInstructionData: (
  data: ReadonlyUint8Array,
) => FundPaymentInstructionData | null = fundPayment.safeDecode;

// --- FundPaymentV2 (8): FundPayment body ‖ 4 × i64 ‖ min_oracle_tip u64

export interface FundPaymentV2InstructionData extends FundPaymentInstructionData {
  /** Passed through as given; the ABI does not say which value means "use the Config default". */
  closureDelayOverrideSeconds: bigint;
  refundCooldownOverrideSeconds: bigint;
  deliveryCutoffOverrideSeconds: bigint;
  arbitrationWindowSeconds: bigint;
  /** Base units of the mint. */
  minOracleTip: bigint;
}

const fundPaymentV2 = instructionDataCodecs<FundPaymentV2InstructionData>(
  "FundPaymentV2",
  SLA_ESCROW_INSTRUCTION.FUND_PAYMENT_V2,
  getStructEncoder([
    ...fundPaymentBodyFields.encoder,
    ["closureDelayOverrideSeconds", getI64Encoder()],
    ["refundCooldownOverrideSeconds", getI64Encoder()],
    ["deliveryCutoffOverrideSeconds", getI64Encoder()],
    ["arbitrationWindowSeconds", getI64Encoder()],
    ["minOracleTip", getU64Encoder()],
  ]),
  getStructDecoder([
    ...fundPaymentBodyFields.decoder,
    ["closureDelayOverrideSeconds", getI64Decoder()],
    ["refundCooldownOverrideSeconds", getI64Decoder()],
    ["deliveryCutoffOverrideSeconds", getI64Decoder()],
    ["arbitrationWindowSeconds", getI64Decoder()],
    ["minOracleTip", getU64Decoder()],
  ]),
);
export function getFundPaymentV2InstructionDataEncoder(): FixedSizeEncoder<FundPaymentV2InstructionData> {
  return fundPaymentV2.encoder;
}
export function getFundPaymentV2InstructionDataDecoder(): FixedSizeDecoder<FundPaymentV2InstructionData> {
  return fundPaymentV2.decoder;
}
export const decodeFundPaymentV2InstructionData: (
  data: ReadonlyUint8Array,
) => FundPaymentV2InstructionData | null = fundPaymentV2.safeDecode;

// --- ReleasePayment (1), RefundPayment (2), ClosePayment (3): no body

const releasePayment = instructionDataCodecs<void>(
  "ReleasePayment",
  SLA_ESCROW_INSTRUCTION.RELEASE_PAYMENT,
  getUnitEncoder(),
  getUnitDecoder(),
);
const refundPayment = instructionDataCodecs<void>(
  "RefundPayment",
  SLA_ESCROW_INSTRUCTION.REFUND_PAYMENT,
  getUnitEncoder(),
  getUnitDecoder(),
);
const closePayment = instructionDataCodecs<void>(
  "ClosePayment",
  SLA_ESCROW_INSTRUCTION.CLOSE_PAYMENT,
  getUnitEncoder(),
  getUnitDecoder(),
);
export function getReleasePaymentInstructionDataEncoder(): FixedSizeEncoder<void> {
  return releasePayment.encoder;
}
export function getReleasePaymentInstructionDataDecoder(): FixedSizeDecoder<void> {
  return releasePayment.decoder;
}
export function getRefundPaymentInstructionDataEncoder(): FixedSizeEncoder<void> {
  return refundPayment.encoder;
}
export function getRefundPaymentInstructionDataDecoder(): FixedSizeDecoder<void> {
  return refundPayment.decoder;
}
export function getClosePaymentInstructionDataEncoder(): FixedSizeEncoder<void> {
  return closePayment.encoder;
}
export function getClosePaymentInstructionDataDecoder(): FixedSizeDecoder<void> {
  return closePayment.decoder;
}

// --- ExtendPaymentTTL (4): additional_seconds i64

export interface ExtendPaymentTtlInstructionData {
  additionalSeconds: bigint;
}

const extendPaymentTtl = instructionDataCodecs<ExtendPaymentTtlInstructionData>(
  "ExtendPaymentTTL",
  SLA_ESCROW_INSTRUCTION.EXTEND_PAYMENT_TTL,
  getStructEncoder([["additionalSeconds", getI64Encoder()]]),
  getStructDecoder([["additionalSeconds", getI64Decoder()]]),
);
export function getExtendPaymentTtlInstructionDataEncoder(): FixedSizeEncoder<ExtendPaymentTtlInstructionData> {
  return extendPaymentTtl.encoder;
}
export function getExtendPaymentTtlInstructionDataDecoder(): FixedSizeDecoder<ExtendPaymentTtlInstructionData> {
  return extendPaymentTtl.decoder;
}
export const decodeExtendPaymentTtlInstructionData: (
  data: ReadonlyUint8Array,
) => ExtendPaymentTtlInstructionData | null = extendPaymentTtl.safeDecode;

// --- SubmitDelivery (5), ApproveDelivery (7): delivery_hash 32

export interface DeliveryHashInstructionData {
  deliveryHash: ReadonlyUint8Array;
}

const submitDelivery = instructionDataCodecs<DeliveryHashInstructionData>(
  "SubmitDelivery",
  SLA_ESCROW_INSTRUCTION.SUBMIT_DELIVERY,
  getStructEncoder([["deliveryHash", getBytes32Encoder()]]),
  getStructDecoder([["deliveryHash", getBytes32Decoder()]]),
);
const approveDelivery = instructionDataCodecs<DeliveryHashInstructionData>(
  "ApproveDelivery",
  SLA_ESCROW_INSTRUCTION.APPROVE_DELIVERY,
  getStructEncoder([["deliveryHash", getBytes32Encoder()]]),
  getStructDecoder([["deliveryHash", getBytes32Decoder()]]),
);
export function getSubmitDeliveryInstructionDataEncoder(): FixedSizeEncoder<DeliveryHashInstructionData> {
  return submitDelivery.encoder;
}
export function getSubmitDeliveryInstructionDataDecoder(): FixedSizeDecoder<DeliveryHashInstructionData> {
  return submitDelivery.decoder;
}
export const decodeSubmitDeliveryInstructionData: (
  data: ReadonlyUint8Array,
) => DeliveryHashInstructionData | null = submitDelivery.safeDecode;
export function getApproveDeliveryInstructionDataEncoder(): FixedSizeEncoder<DeliveryHashInstructionData> {
  return approveDelivery.encoder;
}
export function getApproveDeliveryInstructionDataDecoder(): FixedSizeDecoder<DeliveryHashInstructionData> {
  return approveDelivery.decoder;
}
export const decodeApproveDeliveryInstructionData: (
  data: ReadonlyUint8Array,
) => DeliveryHashInstructionData | null = approveDelivery.safeDecode;

// --- ConfirmOracle (6): delivery_hash 32 ‖ resolution_hash 32 ‖ reason u16 ‖ state u8 ‖ 5 pad

export interface ConfirmOracleInstructionData {
  deliveryHash: ReadonlyUint8Array;
  resolutionHash: ReadonlyUint8Array;
  reason: number;
  /** See RESOLUTION_STATE (1 approved, 2 rejected). */
  state: number;
}

const confirmOracle = instructionDataCodecs<ConfirmOracleInstructionData>(
  "ConfirmOracle",
  SLA_ESCROW_INSTRUCTION.CONFIRM_ORACLE,
  getStructEncoder([
    ["deliveryHash", getBytes32Encoder()],
    ["resolutionHash", getBytes32Encoder()],
    ["reason", getU16Encoder()],
    ["state", padRightEncoder(getU8Encoder(), 5)],
  ]),
  getStructDecoder([
    ["deliveryHash", getBytes32Decoder()],
    ["resolutionHash", getBytes32Decoder()],
    ["reason", getU16Decoder()],
    ["state", padRightDecoder(getU8Decoder(), 5)],
  ]),
);
export function getConfirmOracleInstructionDataEncoder(): FixedSizeEncoder<ConfirmOracleInstructionData> {
  return confirmOracle.encoder;
}
export function getConfirmOracleInstructionDataDecoder(): FixedSizeDecoder<ConfirmOracleInstructionData> {
  return confirmOracle.decoder;
}
export const decodeConfirmOracleInstructionData: (
  data: ReadonlyUint8Array,
) => ConfirmOracleInstructionData | null = confirmOracle.safeDecode;

// --- ProposeMutualAction (9), AcceptMutualAction (10): action u8 ‖ 7 pad ‖ value i64 ‖ pubkey 32

export interface MutualActionInstructionData {
  /** See MUTUAL_ACTION. */
  action: number;
  /** For EXTEND_TTL: the seconds to add. */
  value: bigint;
  /** For ROTATE_ADJUDICATOR: the new adjudicator. */
  pubkey: Address;
}

const mutualActionBodyEncoder = getStructEncoder([
  ["action", padRightEncoder(getU8Encoder(), 7)],
  ["value", getI64Encoder()],
  ["pubkey", getAddressEncoder()],
]);
const mutualActionBodyDecoder = getStructDecoder([
  ["action", padRightDecoder(getU8Decoder(), 7)],
  ["value", getI64Decoder()],
  ["pubkey", getAddressDecoder()],
]);
const proposeMutualAction = instructionDataCodecs<MutualActionInstructionData>(
  "ProposeMutualAction",
  SLA_ESCROW_INSTRUCTION.PROPOSE_MUTUAL_ACTION,
  mutualActionBodyEncoder,
  mutualActionBodyDecoder,
);
const acceptMutualAction = instructionDataCodecs<MutualActionInstructionData>(
  "AcceptMutualAction",
  SLA_ESCROW_INSTRUCTION.ACCEPT_MUTUAL_ACTION,
  mutualActionBodyEncoder,
  mutualActionBodyDecoder,
);
export function getProposeMutualActionInstructionDataEncoder(): FixedSizeEncoder<MutualActionInstructionData> {
  return proposeMutualAction.encoder;
}
export function getProposeMutualActionInstructionDataDecoder(): FixedSizeDecoder<MutualActionInstructionData> {
  return proposeMutualAction.decoder;
}
export const decodeProposeMutualActionInstructionData: (
  data: ReadonlyUint8Array,
) => MutualActionInstructionData | null = proposeMutualAction.safeDecode;
export function getAcceptMutualActionInstructionDataEncoder(): FixedSizeEncoder<MutualActionInstructionData> {
  return acceptMutualAction.encoder;
}
export function getAcceptMutualActionInstructionDataDecoder(): FixedSizeDecoder<MutualActionInstructionData> {
  return acceptMutualAction.decoder;
}
export const decodeAcceptMutualActionInstructionData: (
  data: ReadonlyUint8Array,
) => MutualActionInstructionData | null = acceptMutualAction.safeDecode;

// --- DisputePayment (11): dispute_reason_hash 32

export interface DisputePaymentInstructionData {
  disputeReasonHash: ReadonlyUint8Array;
}

const disputePayment = instructionDataCodecs<DisputePaymentInstructionData>(
  "DisputePayment",
  SLA_ESCROW_INSTRUCTION.DISPUTE_PAYMENT,
  getStructEncoder([["disputeReasonHash", getBytes32Encoder()]]),
  getStructDecoder([["disputeReasonHash", getBytes32Decoder()]]),
);
export function getDisputePaymentInstructionDataEncoder(): FixedSizeEncoder<DisputePaymentInstructionData> {
  return disputePayment.encoder;
}
export function getDisputePaymentInstructionDataDecoder(): FixedSizeDecoder<DisputePaymentInstructionData> {
  return disputePayment.decoder;
}
export const decodeDisputePaymentInstructionData: (
  data: ReadonlyUint8Array,
) => DisputePaymentInstructionData | null = disputePayment.safeDecode;

// --- ResolveWithSplit (12): seller_bps u16 ‖ reason u16 ‖ 4 pad ‖ resolution_hash 32 ‖ expected_delivery_hash 32

export interface ResolveWithSplitInstructionData {
  /** Share of the payment to the seller, ≤ MAX_SELLER_SPLIT_BPS; the rest goes back to the buyer. */
  sellerBps: number;
  reason: number;
  resolutionHash: ReadonlyUint8Array;
  expectedDeliveryHash: ReadonlyUint8Array;
}

const resolveWithSplit = instructionDataCodecs<ResolveWithSplitInstructionData>(
  "ResolveWithSplit",
  SLA_ESCROW_INSTRUCTION.RESOLVE_WITH_SPLIT,
  getStructEncoder([
    ["sellerBps", getU16Encoder()],
    ["reason", padRightEncoder(getU16Encoder(), 4)],
    ["resolutionHash", getBytes32Encoder()],
    ["expectedDeliveryHash", getBytes32Encoder()],
  ]),
  getStructDecoder([
    ["sellerBps", getU16Decoder()],
    ["reason", padRightDecoder(getU16Decoder(), 4)],
    ["resolutionHash", getBytes32Decoder()],
    ["expectedDeliveryHash", getBytes32Decoder()],
  ]),
);
export function getResolveWithSplitInstructionDataEncoder(): FixedSizeEncoder<ResolveWithSplitInstructionData> {
  return resolveWithSplit.encoder;
}
export function getResolveWithSplitInstructionDataDecoder(): FixedSizeDecoder<ResolveWithSplitInstructionData> {
  return resolveWithSplit.decoder;
}
export const decodeResolveWithSplitInstructionData: (
  data: ReadonlyUint8Array,
) => ResolveWithSplitInstructionData | null = resolveWithSplit.safeDecode;

// ===================================================================================================
// Instruction builders

/** The PDAs every payment instruction names after its signer. */
interface PaymentAccountsInput {
  programId: Address;
  bank: Address;
  /** The program-wide Config PDA. */
  config: Address;
  escrow: Address;
  payment: Address;
}

// --- FundPayment (0) / FundPaymentV2 (8)

interface FundPaymentCommonInput extends PaymentAccountsInput, Omit<FundPaymentInstructionData, "mint"> {
  buyer: AddressOrSigner;
}

export interface FundPaymentSolInstructionInput extends FundPaymentCommonInput {
  kind: "sol";
  /** The escrow's SOL storage PDA. */
  solStorage: Address;
}

export interface FundPaymentSplInstructionInput extends FundPaymentCommonInput {
  kind: "spl";
  mint: Address;
  /** ATA(owner = escrow PDA, mint, token program). */
  escrowAta: Address;
  buyerAta: Address;
  /** Token or Token-2022, whichever owns the mint. */
  tokenProgram: Address;
}

export type FundPaymentInstructionInput = FundPaymentSolInstructionInput | FundPaymentSplInstructionInput;

export type FundPaymentV2InstructionInput = FundPaymentInstructionInput &
  Omit<FundPaymentV2InstructionData, keyof FundPaymentInstructionData> & {
    paymentExt: Address;
  };

function fundPaymentMint(input: FundPaymentInstructionInput): Address {
  if (input.kind === "sol") return NATIVE_SOL_ESCROW_MINT;
  if (input.mint === NATIVE_SOL_ESCROW_MINT) {
    throw new RangeError('an SPL FundPayment needs a real mint; use kind "sol" for native SOL');
  }
  return input.mint;
}

/**
 * SOL: buyer (s,w), bank, config, escrow (w), payment (w), mint, SOL storage (w), System.
 * SPL: buyer (s,w), bank, config, escrow (w), payment (w), mint, escrow ATA (w), buyer ATA (w), token program, System.
 */
function fundPaymentAccounts(input: FundPaymentInstructionInput, mint: Address): AccountMeta[] {
  const head = [
    signerAccount(input.buyer, true),
    readonlyAccount(input.bank),
    readonlyAccount(input.config),
    writableAccount(input.escrow),
    writableAccount(input.payment),
    readonlyAccount(mint),
  ];
  if (input.kind === "sol") {
    return [...head, writableAccount(input.solStorage), readonlyAccount(SYSTEM_PROGRAM_ADDRESS)];
  }
  return [
    ...head,
    writableAccount(input.escrowAta),
    writableAccount(input.buyerAta),
    readonlyAccount(input.tokenProgram),
    readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
  ];
}

function fundPaymentData(input: FundPaymentInstructionInput, mint: Address): FundPaymentInstructionData {
  return {
    seller: input.seller,
    mint,
    oracleAuthority: input.oracleAuthority,
    paymentUid: input.paymentUid,
    slaHash: input.slaHash,
    amount: input.amount,
    ttlSeconds: input.ttlSeconds,
  };
}

export function getFundPaymentInstruction(input: FundPaymentInstructionInput): ProgramInstruction {
  const mint = fundPaymentMint(input);
  return {
    programAddress: input.programId,
    accounts: fundPaymentAccounts(input, mint),
    data: fundPayment.encoder.encode(fundPaymentData(input, mint)),
  };
}

/** The FundPayment account list with PaymentExt (w) appended. */
export function getFundPaymentV2Instruction(input: FundPaymentV2InstructionInput): ProgramInstruction {
  const mint = fundPaymentMint(input);
  return {
    programAddress: input.programId,
    accounts: [...fundPaymentAccounts(input, mint), writableAccount(input.paymentExt)],
    data: fundPaymentV2.encoder.encode({
      ...fundPaymentData(input, mint),
      closureDelayOverrideSeconds: input.closureDelayOverrideSeconds,
      refundCooldownOverrideSeconds: input.refundCooldownOverrideSeconds,
      deliveryCutoffOverrideSeconds: input.deliveryCutoffOverrideSeconds,
      arbitrationWindowSeconds: input.arbitrationWindowSeconds,
      minOracleTip: input.minOracleTip,
    }),
  };
}

// --- ReleasePayment (1) / RefundPayment (2)

interface PayoutCommonInput extends PaymentAccountsInput {
  /** Whoever triggers the payout (a keeper, or the facilitator). */
  keeper: AddressOrSigner;
}

export interface PayoutSolInstructionInput extends PayoutCommonInput {
  kind: "sol";
  solStorage: Address;
  /** The seller for ReleasePayment, the buyer for RefundPayment. */
  recipient: Address;
}

export interface PayoutSplInstructionInput extends PayoutCommonInput {
  kind: "spl";
  mint: Address;
  escrowAta: Address;
  /** The seller's ATA for ReleasePayment, the buyer's for RefundPayment. */
  recipientAta: Address;
  tokenProgram: Address;
}

export type PayoutInstructionInput = PayoutSolInstructionInput | PayoutSplInstructionInput;

/**
 * Release/Refund account list: NOT IN THE ABI; chosen for the local stand-in program (the only
 * place this order is defined, shared by both instructions):
 * keeper (s,w), bank, config, escrow (w), payment (w), mint, then
 * SOL: SOL storage (w), recipient (w), System;
 * SPL: escrow ATA (w), recipient ATA (w), token program.
 */
function payoutAccounts(input: PayoutInstructionInput): AccountMeta[] {
  const head = [
    signerAccount(input.keeper, true),
    readonlyAccount(input.bank),
    readonlyAccount(input.config),
    writableAccount(input.escrow),
    writableAccount(input.payment),
  ];
  if (input.kind === "sol") {
    return [
      ...head,
      readonlyAccount(NATIVE_SOL_ESCROW_MINT),
      writableAccount(input.solStorage),
      writableAccount(input.recipient),
      readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
    ];
  }
  return [
    ...head,
    readonlyAccount(input.mint),
    writableAccount(input.escrowAta),
    writableAccount(input.recipientAta),
    readonlyAccount(input.tokenProgram),
  ];
}

/** Pays the escrowed amount (less fees) to the seller. Account list: see payoutAccounts. */
export function getReleasePaymentInstruction(input: PayoutInstructionInput): ProgramInstruction {
  return { programAddress: input.programId, accounts: payoutAccounts(input), data: releasePayment.encoder.encode() };
}

/** Returns the escrowed amount to the buyer. Account list: see payoutAccounts. */
export function getRefundPaymentInstruction(input: PayoutInstructionInput): ProgramInstruction {
  return { programAddress: input.programId, accounts: payoutAccounts(input), data: refundPayment.encoder.encode() };
}

// --- ClosePayment (3)

export interface ClosePaymentInstructionInput extends PaymentAccountsInput {
  caller: AddressOrSigner;
  /** Receives the Payment account's rent. */
  buyer: Address;
}

/** Accounts: caller (s), buyer (w), bank, config, escrow (w), payment (w), System. */
export function getClosePaymentInstruction(input: ClosePaymentInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: [
      signerAccount(input.caller, false),
      writableAccount(input.buyer),
      readonlyAccount(input.bank),
      readonlyAccount(input.config),
      writableAccount(input.escrow),
      writableAccount(input.payment),
      readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
    ],
    data: closePayment.encoder.encode(),
  };
}

// --- Party instructions: ExtendPaymentTTL (4), SubmitDelivery (5), ApproveDelivery (7)

/** signer (s,w), bank, config, escrow, payment (w). */
function partyAccounts(signer: AddressOrSigner, input: PaymentAccountsInput): AccountMeta[] {
  return [
    signerAccount(signer, true),
    readonlyAccount(input.bank),
    readonlyAccount(input.config),
    readonlyAccount(input.escrow),
    writableAccount(input.payment),
  ];
}

export interface ExtendPaymentTtlInstructionInput extends PaymentAccountsInput, ExtendPaymentTtlInstructionData {
  buyer: AddressOrSigner;
}

/**
 * Accounts: NOT IN THE ABI; chosen for the local stand-in: the SubmitDelivery shape with the buyer
 * as signer: buyer (s,w), bank, config, escrow, payment (w).
 */
export function getExtendPaymentTtlInstruction(input: ExtendPaymentTtlInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: partyAccounts(input.buyer, input),
    data: extendPaymentTtl.encoder.encode({ additionalSeconds: input.additionalSeconds }),
  };
}

export interface SubmitDeliveryInstructionInput extends PaymentAccountsInput, DeliveryHashInstructionData {
  /** Must be Payment.seller. */
  seller: AddressOrSigner;
}

/** Accounts: seller (s,w), bank, config, escrow, payment (w). */
export function getSubmitDeliveryInstruction(input: SubmitDeliveryInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: partyAccounts(input.seller, input),
    data: submitDelivery.encoder.encode({ deliveryHash: input.deliveryHash }),
  };
}

export interface ApproveDeliveryInstructionInput extends PaymentAccountsInput, DeliveryHashInstructionData {
  buyer: AddressOrSigner;
}

/** Accounts: buyer (s,w), bank, config, escrow, payment (w). */
export function getApproveDeliveryInstruction(input: ApproveDeliveryInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: partyAccounts(input.buyer, input),
    data: approveDelivery.encoder.encode({ deliveryHash: input.deliveryHash }),
  };
}

// --- ConfirmOracle (6)

export interface ConfirmOracleInstructionInput extends PaymentAccountsInput, ConfirmOracleInstructionData {
  oracle: AddressOrSigner;
}

/** Accounts: oracle (s), bank, config, escrow, payment (w). */
export function getConfirmOracleInstruction(input: ConfirmOracleInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: [
      signerAccount(input.oracle, false),
      readonlyAccount(input.bank),
      readonlyAccount(input.config),
      readonlyAccount(input.escrow),
      writableAccount(input.payment),
    ],
    data: confirmOracle.encoder.encode({
      deliveryHash: input.deliveryHash,
      resolutionHash: input.resolutionHash,
      reason: input.reason,
      state: input.state,
    }),
  };
}

// --- v0.5 dispute flow: ProposeMutualAction (9), AcceptMutualAction (10), DisputePayment (11)

interface PaymentExtAccountsInput extends PaymentAccountsInput {
  paymentExt: Address;
}

/** party (s,w), bank, config, escrow, payment (w), PaymentExt (w). */
function paymentExtPartyAccounts(party: AddressOrSigner, input: PaymentExtAccountsInput): AccountMeta[] {
  return [...partyAccounts(party, input), writableAccount(input.paymentExt)];
}

export interface MutualActionInstructionInput extends PaymentExtAccountsInput, MutualActionInstructionData {
  /** The buyer or the seller (Accept: the party that did not propose). */
  party: AddressOrSigner;
}

function mutualActionData(input: MutualActionInstructionInput): MutualActionInstructionData {
  return { action: input.action, value: input.value, pubkey: input.pubkey };
}

/** Accounts: party (s,w), bank, config, escrow, payment (w), PaymentExt (w). */
export function getProposeMutualActionInstruction(input: MutualActionInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: paymentExtPartyAccounts(input.party, input),
    data: proposeMutualAction.encoder.encode(mutualActionData(input)),
  };
}

/** Accounts: party (s,w), bank, config, escrow, payment (w), PaymentExt (w). */
export function getAcceptMutualActionInstruction(input: MutualActionInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: paymentExtPartyAccounts(input.party, input),
    data: acceptMutualAction.encoder.encode(mutualActionData(input)),
  };
}

export interface DisputePaymentInstructionInput extends PaymentExtAccountsInput, DisputePaymentInstructionData {
  buyer: AddressOrSigner;
}

/** Accounts: buyer (s,w), bank, config, escrow, payment (w), PaymentExt (w). */
export function getDisputePaymentInstruction(input: DisputePaymentInstructionInput): ProgramInstruction {
  return {
    programAddress: input.programId,
    accounts: paymentExtPartyAccounts(input.buyer, input),
    data: disputePayment.encoder.encode({ disputeReasonHash: input.disputeReasonHash }),
  };
}

// --- ResolveWithSplit (12)

interface ResolveWithSplitCommonInput extends PaymentExtAccountsInput, ResolveWithSplitInstructionData {
  adjudicator: AddressOrSigner;
  seller: Address;
  /** Also the rent recipient: the ABI lists the buyer a second time, writable, after PaymentExt. */
  buyer: Address;
}

export interface ResolveWithSplitSolInstructionInput extends ResolveWithSplitCommonInput {
  kind: "sol";
  solStorage: Address;
}

export interface ResolveWithSplitSplInstructionInput extends ResolveWithSplitCommonInput {
  kind: "spl";
  mint: Address;
  escrowAta: Address;
  sellerAta: Address;
  buyerAta: Address;
  adjudicatorAta: Address;
  tokenProgram: Address;
}

export type ResolveWithSplitInstructionInput = ResolveWithSplitSolInstructionInput | ResolveWithSplitSplInstructionInput;

/**
 * adjudicator (s,w), bank, config, escrow (w), payment (w), mint, then
 * SOL: SOL storage (w), seller (w), buyer (w), System, PaymentExt (w), buyer (w, rent recipient);
 * SPL: escrow ATA (w), seller ATA (w), seller, buyer ATA (w), buyer, token program, Associated Token
 *      program, System, PaymentExt (w), buyer (w, rent recipient), adjudicator ATA (w).
 * The buyer appears twice on purpose; the transaction message merges the roles.
 */
export function getResolveWithSplitInstruction(input: ResolveWithSplitInstructionInput): ProgramInstruction {
  const head = [
    signerAccount(input.adjudicator, true),
    readonlyAccount(input.bank),
    readonlyAccount(input.config),
    writableAccount(input.escrow),
    writableAccount(input.payment),
  ];
  const data = resolveWithSplit.encoder.encode({
    sellerBps: input.sellerBps,
    reason: input.reason,
    resolutionHash: input.resolutionHash,
    expectedDeliveryHash: input.expectedDeliveryHash,
  });
  if (input.kind === "sol") {
    return {
      programAddress: input.programId,
      accounts: [
        ...head,
        readonlyAccount(NATIVE_SOL_ESCROW_MINT),
        writableAccount(input.solStorage),
        writableAccount(input.seller),
        writableAccount(input.buyer),
        readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
        writableAccount(input.paymentExt),
        writableAccount(input.buyer),
      ],
      data,
    };
  }
  return {
    programAddress: input.programId,
    accounts: [
      ...head,
      readonlyAccount(input.mint),
      writableAccount(input.escrowAta),
      writableAccount(input.sellerAta),
      readonlyAccount(input.seller),
      writableAccount(input.buyerAta),
      readonlyAccount(input.buyer),
      readonlyAccount(input.tokenProgram),
      readonlyAccount(ASSOCIATED_TOKEN_PROGRAM_ADDRESS),
      readonlyAccount(SYSTEM_PROGRAM_ADDRESS),
      writableAccount(input.paymentExt),
      writableAccount(input.buyer),
      writableAccount(input.adjudicatorAta),
    ],
    data,
  };
}

// ===================================================================================================
// Recognising a funding instruction (verifier side)

type AccountsNamed<TNames extends readonly string[]> = { readonly [K in TNames[number]]: AccountMeta };

const FUND_PAYMENT_SOL_ACCOUNT_NAMES = [
  "buyer",
  "bank",
  "config",
  "escrow",
  "payment",
  "mint",
  "solStorage",
  "systemProgram",
] as const;
const FUND_PAYMENT_SPL_ACCOUNT_NAMES = [
  "buyer",
  "bank",
  "config",
  "escrow",
  "payment",
  "mint",
  "escrowAta",
  "buyerAta",
  "tokenProgram",
  "systemProgram",
] as const;
const FUND_PAYMENT_V2_SOL_ACCOUNT_NAMES = [...FUND_PAYMENT_SOL_ACCOUNT_NAMES, "paymentExt"] as const;
const FUND_PAYMENT_V2_SPL_ACCOUNT_NAMES = [...FUND_PAYMENT_SPL_ACCOUNT_NAMES, "paymentExt"] as const;

export type FundPaymentSolAccounts = AccountsNamed<typeof FUND_PAYMENT_SOL_ACCOUNT_NAMES>;
export type FundPaymentSplAccounts = AccountsNamed<typeof FUND_PAYMENT_SPL_ACCOUNT_NAMES>;
export type FundPaymentV2SolAccounts = AccountsNamed<typeof FUND_PAYMENT_V2_SOL_ACCOUNT_NAMES>;
export type FundPaymentV2SplAccounts = AccountsNamed<typeof FUND_PAYMENT_V2_SPL_ACCOUNT_NAMES>;

export type ParsedFundPaymentInstruction =
  | { kind: "sol"; data: FundPaymentInstructionData; accounts: FundPaymentSolAccounts }
  | { kind: "spl"; data: FundPaymentInstructionData; accounts: FundPaymentSplAccounts };

export type ParsedFundPaymentV2Instruction =
  | { kind: "sol"; data: FundPaymentV2InstructionData; accounts: FundPaymentV2SolAccounts }
  | { kind: "spl"; data: FundPaymentV2InstructionData; accounts: FundPaymentV2SplAccounts };

function nameAccounts<const TNames extends readonly string[]>(
  names: TNames,
  metas: readonly { address: Address; role: AccountMeta["role"] }[],
): AccountsNamed<TNames> | null {
  if (metas.length !== names.length) return null;
  const named: Record<string, AccountMeta> = {};
  names.forEach((name, index) => {
    const meta = metas[index];
    if (meta !== undefined) named[name] = { address: meta.address, role: meta.role };
  });
  // Every name was filled above (lengths are equal), which is what the mapped type states.
  return named as AccountsNamed<TNames>;
}

/**
 * Structural recognition of a FundPayment (0): right program, discriminator, exact data length and
 * exact account count for its kind (SOL when data.mint is the zero address). Returns null otherwise.
 * It does not judge the values (payTo, amount, roles): that is the verifier's policy.
 */
export function parseFundPaymentInstruction(
  instruction: Instruction,
  programId: Address,
): ParsedFundPaymentInstruction | null {
  if (instruction.programAddress !== programId || instruction.data === undefined) return null;
  const data = fundPayment.safeDecode(instruction.data);
  if (data === null) return null;
  const metas = instruction.accounts ?? [];
  if (data.mint === NATIVE_SOL_ESCROW_MINT) {
    const accounts = nameAccounts(FUND_PAYMENT_SOL_ACCOUNT_NAMES, metas);
    return accounts === null ? null : { kind: "sol", data, accounts };
  }
  const accounts = nameAccounts(FUND_PAYMENT_SPL_ACCOUNT_NAMES, metas);
  return accounts === null ? null : { kind: "spl", data, accounts };
}

/** As parseFundPaymentInstruction, for FundPaymentV2 (8) with its trailing PaymentExt account. */
export function parseFundPaymentV2Instruction(
  instruction: Instruction,
  programId: Address,
): ParsedFundPaymentV2Instruction | null {
  if (instruction.programAddress !== programId || instruction.data === undefined) return null;
  const data = fundPaymentV2.safeDecode(instruction.data);
  if (data === null) return null;
  const metas = instruction.accounts ?? [];
  if (data.mint === NATIVE_SOL_ESCROW_MINT) {
    const accounts = nameAccounts(FUND_PAYMENT_V2_SOL_ACCOUNT_NAMES, metas);
    return accounts === null ? null : { kind: "sol", data, accounts };
  }
  const accounts = nameAccounts(FUND_PAYMENT_V2_SPL_ACCOUNT_NAMES, metas);
  return accounts === null ? null : { kind: "spl", data, accounts };
}
