/**
 * SLA-Escrow instructions (ABI: sla-escrow.md, "Instructions" and "Account lists"), described ONCE
 * as data in `SLA_ESCROW_INSTRUCTIONS`: discriminator, body fields (kit codecs) and the ordered
 * account slots (name = the builder input key, role, or a fixed address) per variant (SOL / SPL).
 * The data codecs, the kit Instruction builders and the verifier's `parseFundPayment*` are all
 * derived from that table, the way Codama-generated `@solana-program/*` clients are regular.
 *
 * Builders are synchronous and take every address explicitly; derive PDAs with ./pda.ts first.
 * Codecs check bytes, not policy: TTL bounds, seller_bps ≤ 10,000 and similar rules are exported as
 * constants for the verifier and builders in `schemes/` to enforce.
 */
import {
  combineCodec,
  getAddressCodec,
  getI64Codec,
  getStructCodec,
  getU16Codec,
  getU64Codec,
  getU8Codec,
  getUnitCodec,
  padRightCodec,
  type AccountMeta,
  type Address,
  type FixedSizeCodec,
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
  addressOf,
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

// ===================================================================================================
// Data shapes (the TypeScript view of each body; the byte layout is the field list in the table)

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

export interface FundPaymentV2InstructionData extends FundPaymentInstructionData {
  /** Passed through as given; the ABI does not say which value means "use the Config default". */
  closureDelayOverrideSeconds: bigint;
  refundCooldownOverrideSeconds: bigint;
  deliveryCutoffOverrideSeconds: bigint;
  arbitrationWindowSeconds: bigint;
  /** Base units of the mint. */
  minOracleTip: bigint;
}

export interface ExtendPaymentTtlInstructionData {
  additionalSeconds: bigint;
}

export interface DeliveryHashInstructionData {
  deliveryHash: ReadonlyUint8Array;
}

export interface ConfirmOracleInstructionData {
  deliveryHash: ReadonlyUint8Array;
  resolutionHash: ReadonlyUint8Array;
  reason: number;
  /** See RESOLUTION_STATE (1 approved, 2 rejected). */
  state: number;
}

export interface MutualActionInstructionData {
  /** See MUTUAL_ACTION. */
  action: number;
  /** For EXTEND_TTL: the seconds to add. */
  value: bigint;
  /** For ROTATE_ADJUDICATOR: the new adjudicator. */
  pubkey: Address;
}

export interface DisputePaymentInstructionData {
  disputeReasonHash: ReadonlyUint8Array;
}

export interface ResolveWithSplitInstructionData {
  /** Share of the payment to the seller, ≤ MAX_SELLER_SPLIT_BPS; the rest goes back to the buyer. */
  sellerBps: number;
  reason: number;
  resolutionHash: ReadonlyUint8Array;
  expectedDeliveryHash: ReadonlyUint8Array;
}

// ===================================================================================================
// The table

/** s = signer, sw = writable signer, w = writable, r = read-only. */
type Role = "s" | "sw" | "w" | "r";
/** [input key, role] or [name, role, fixed address]. A key may repeat (ResolveWithSplit's buyer). */
type AccountSlot = readonly [name: string, role: Role] | readonly [name: string, role: Role, fixed: Address];
type AccountLayouts = { readonly [variant: string]: readonly AccountSlot[] };

const bytes32 = combineCodec(getBytes32Encoder(), getBytes32Decoder());
const SYSTEM = ["systemProgram", "r", SYSTEM_PROGRAM_ADDRESS] as const;
const SOL_MINT = ["mint", "r", NATIVE_SOL_ESCROW_MINT] as const;

const FUND_PAYMENT_FIELDS = [
  ["seller", getAddressCodec()],
  ["mint", getAddressCodec()],
  ["oracleAuthority", getAddressCodec()],
  ["paymentUid", bytes32],
  ["slaHash", bytes32],
  ["amount", getU64Codec()],
  ["ttlSeconds", getI64Codec()],
] as const;
const DELIVERY_HASH_FIELDS = [["deliveryHash", bytes32]] as const;
const MUTUAL_ACTION_FIELDS = [
  ["action", padRightCodec(getU8Codec(), 7)],
  ["value", getI64Codec()],
  ["pubkey", getAddressCodec()],
] as const;

/** The PDAs every payment instruction names after its signer. */
const PAYMENT_HEAD = <const S extends string, const SR extends Role, const ER extends Role>(
  signer: S,
  signerRole: SR,
  escrowRole: ER,
) =>
  [[signer, signerRole], ["bank", "r"], ["config", "r"], ["escrow", escrowRole], ["payment", "w"]] as const;

const FUND_PAYMENT_ACCOUNTS = {
  sol: [...PAYMENT_HEAD("buyer", "sw", "w"), SOL_MINT, ["solStorage", "w"], SYSTEM],
  spl: [
    ...PAYMENT_HEAD("buyer", "sw", "w"),
    ["mint", "r"],
    ["escrowAta", "w"],
    ["buyerAta", "w"],
    ["tokenProgram", "r"],
    SYSTEM,
  ],
} as const;
const FUND_PAYMENT_V2_ACCOUNTS = {
  sol: [...FUND_PAYMENT_ACCOUNTS.sol, ["paymentExt", "w"]],
  spl: [...FUND_PAYMENT_ACCOUNTS.spl, ["paymentExt", "w"]],
} as const;
/**
 * Release/Refund: NOT IN THE ABI; chosen for the local stand-in program (the only place this order is
 * defined). `recipient` is the seller (Release) or the buyer (Refund); `keeper` triggers the payout.
 */
const PAYOUT_ACCOUNTS = {
  sol: [...PAYMENT_HEAD("keeper", "sw", "w"), SOL_MINT, ["solStorage", "w"], ["recipient", "w"], SYSTEM],
  spl: [
    ...PAYMENT_HEAD("keeper", "sw", "w"),
    ["mint", "r"],
    ["escrowAta", "w"],
    ["recipientAta", "w"],
    ["tokenProgram", "r"],
  ],
} as const;
/** ExtendPaymentTTL's list is NOT IN THE ABI: the SubmitDelivery shape with the buyer signing (stand-in). */
const partyAccounts = <const P extends string>(party: P) => ({ only: PAYMENT_HEAD(party, "sw", "r") }) as const;
const paymentExtPartyAccounts = <const P extends string>(party: P) =>
  ({ only: [...PAYMENT_HEAD(party, "sw", "r"), ["paymentExt", "w"]] }) as const;

/** The buyer appears twice in ResolveWithSplit on purpose (rent recipient); the message merges the roles. */
const RESOLVE_WITH_SPLIT_ACCOUNTS = {
  sol: [
    ...PAYMENT_HEAD("adjudicator", "sw", "w"),
    SOL_MINT,
    ["solStorage", "w"],
    ["seller", "w"],
    ["buyer", "w"],
    SYSTEM,
    ["paymentExt", "w"],
    ["buyer", "w"],
  ],
  spl: [
    ...PAYMENT_HEAD("adjudicator", "sw", "w"),
    ["mint", "r"],
    ["escrowAta", "w"],
    ["sellerAta", "w"],
    ["seller", "r"],
    ["buyerAta", "w"],
    ["buyer", "r"],
    ["tokenProgram", "r"],
    ["associatedTokenProgram", "r", ASSOCIATED_TOKEN_PROGRAM_ADDRESS],
    SYSTEM,
    ["paymentExt", "w"],
    ["buyer", "w"],
    ["adjudicatorAta", "w"],
  ],
} as const;

/** Every instruction, once: name, discriminator, body codec, account layouts per variant. */
const SLA_ESCROW_INSTRUCTIONS = {
  fundPayment: spec("FundPayment", 0, getStructCodec(FUND_PAYMENT_FIELDS), FUND_PAYMENT_ACCOUNTS),
  releasePayment: spec("ReleasePayment", 1, getUnitCodec(), PAYOUT_ACCOUNTS),
  refundPayment: spec("RefundPayment", 2, getUnitCodec(), PAYOUT_ACCOUNTS),
  closePayment: spec("ClosePayment", 3, getUnitCodec(), {
    only: [
      ["caller", "s"],
      ["buyer", "w"],
      ["bank", "r"],
      ["config", "r"],
      ["escrow", "w"],
      ["payment", "w"],
      SYSTEM,
    ],
  }),
  extendPaymentTtl: spec(
    "ExtendPaymentTTL",
    4,
    getStructCodec([["additionalSeconds", getI64Codec()]]),
    partyAccounts("buyer"),
  ),
  submitDelivery: spec("SubmitDelivery", 5, getStructCodec(DELIVERY_HASH_FIELDS), partyAccounts("seller")),
  confirmOracle: spec(
    "ConfirmOracle",
    6,
    getStructCodec([
      ["deliveryHash", bytes32],
      ["resolutionHash", bytes32],
      ["reason", getU16Codec()],
      ["state", padRightCodec(getU8Codec(), 5)],
    ]),
    { only: PAYMENT_HEAD("oracle", "s", "r") },
  ),
  approveDelivery: spec("ApproveDelivery", 7, getStructCodec(DELIVERY_HASH_FIELDS), partyAccounts("buyer")),
  fundPaymentV2: spec(
    "FundPaymentV2",
    8,
    getStructCodec([
      ...FUND_PAYMENT_FIELDS,
      ["closureDelayOverrideSeconds", getI64Codec()],
      ["refundCooldownOverrideSeconds", getI64Codec()],
      ["deliveryCutoffOverrideSeconds", getI64Codec()],
      ["arbitrationWindowSeconds", getI64Codec()],
      ["minOracleTip", getU64Codec()],
    ]),
    FUND_PAYMENT_V2_ACCOUNTS,
  ),
  proposeMutualAction: spec(
    "ProposeMutualAction",
    9,
    getStructCodec(MUTUAL_ACTION_FIELDS),
    paymentExtPartyAccounts("party"),
  ),
  acceptMutualAction: spec(
    "AcceptMutualAction",
    10,
    getStructCodec(MUTUAL_ACTION_FIELDS),
    paymentExtPartyAccounts("party"),
  ),
  disputePayment: spec(
    "DisputePayment",
    11,
    getStructCodec([["disputeReasonHash", bytes32]]),
    paymentExtPartyAccounts("buyer"),
  ),
  resolveWithSplit: spec(
    "ResolveWithSplit",
    12,
    getStructCodec([
      ["sellerBps", getU16Codec()],
      ["reason", padRightCodec(getU16Codec(), 4)],
      ["resolutionHash", bytes32],
      ["expectedDeliveryHash", bytes32],
    ]),
    RESOLVE_WITH_SPLIT_ACCOUNTS,
  ),
};
type Table = typeof SLA_ESCROW_INSTRUCTIONS;

// ===================================================================================================
// Derivation: codecs, builders and account naming from one spec

interface InstructionSpec<TData, TLayouts extends AccountLayouts> {
  codecs: DiscriminatedCodecs<TData>;
  accounts: TLayouts;
}

function spec<TData, TLayouts extends AccountLayouts>(
  name: string,
  discriminator: SlaEscrowInstructionDiscriminator,
  // The encoder side of a kit codec takes a superset of what it decodes (u64: number | bigint).
  body: FixedSizeCodec<TData | never, TData>,
  accounts: TLayouts,
): InstructionSpec<TData, TLayouts> {
  const codecs = getDiscriminatedCodecs<TData>(
    `${name} instruction data`,
    discriminator,
    INSTRUCTION_DISCRIMINATOR_PREFIX_SIZE_BYTES,
    body,
    body,
  );
  return { codecs, accounts };
}

const ROLE_META: Record<Role, (account: AddressOrSigner) => AccountMeta> = {
  s: (account) => signerAccount(account, false),
  sw: (account) => signerAccount(account, true),
  w: (account) => writableAccount(addressOf(account)),
  r: (account) => readonlyAccount(addressOf(account)),
};

/** Fills a layout from the builder input: each slot reads `input[name]` unless it has a fixed address. */
function accountMetas(layout: readonly AccountSlot[], input: object): AccountMeta[] {
  const values = input as Record<string, unknown>;
  return layout.map(([name, role, fixed]) => {
    const account = fixed ?? (values[name] as AddressOrSigner | undefined);
    if (account === undefined) throw new TypeError(`missing account "${name}"`);
    return ROLE_META[role](account);
  });
}

/** Builds from the table: the body encoder reads its fields from `data` and ignores the other keys. */
function build<K extends keyof Table>(
  key: K,
  variant: keyof Table[K]["accounts"] & string,
  input: { programId: Address } & object,
  data: Parameters<Table[K]["codecs"]["encoder"]["encode"]>[0],
): ProgramInstruction {
  const { codecs, accounts } = SLA_ESCROW_INSTRUCTIONS[key] as InstructionSpec<unknown, AccountLayouts>;
  const layout = accounts[variant];
  if (layout === undefined) throw new TypeError(`no "${variant}" account list for ${String(key)}`);
  return { programAddress: input.programId, accounts: accountMetas(layout, input), data: codecs.encoder.encode(data) };
}

// ===================================================================================================
// Data codecs (exported names kept for callers)

const codecs = <K extends keyof Table>(key: K): Table[K]["codecs"] => SLA_ESCROW_INSTRUCTIONS[key].codecs;

export const getFundPaymentInstructionDataEncoder = (): FixedSizeEncoder<FundPaymentInstructionData> =>
  codecs("fundPayment").encoder;
export const getFundPaymentInstructionDataDecoder = (): FixedSizeDecoder<FundPaymentInstructionData> =>
  codecs("fundPayment").decoder;
export const decodeFundPaymentInstructionData = (data: ReadonlyUint8Array): FundPaymentInstructionData | null =>
  codecs("fundPayment").safeDecode(data);

export const getFundPaymentV2InstructionDataEncoder = (): FixedSizeEncoder<FundPaymentV2InstructionData> =>
  codecs("fundPaymentV2").encoder;
export const getFundPaymentV2InstructionDataDecoder = (): FixedSizeDecoder<FundPaymentV2InstructionData> =>
  codecs("fundPaymentV2").decoder;
export const decodeFundPaymentV2InstructionData = (data: ReadonlyUint8Array): FundPaymentV2InstructionData | null =>
  codecs("fundPaymentV2").safeDecode(data);

export const getReleasePaymentInstructionDataEncoder = (): FixedSizeEncoder<void> => codecs("releasePayment").encoder;
export const getReleasePaymentInstructionDataDecoder = (): FixedSizeDecoder<void> => codecs("releasePayment").decoder;
export const getRefundPaymentInstructionDataEncoder = (): FixedSizeEncoder<void> => codecs("refundPayment").encoder;
export const getRefundPaymentInstructionDataDecoder = (): FixedSizeDecoder<void> => codecs("refundPayment").decoder;
export const getClosePaymentInstructionDataEncoder = (): FixedSizeEncoder<void> => codecs("closePayment").encoder;
export const getClosePaymentInstructionDataDecoder = (): FixedSizeDecoder<void> => codecs("closePayment").decoder;

export const getExtendPaymentTtlInstructionDataEncoder = (): FixedSizeEncoder<ExtendPaymentTtlInstructionData> =>
  codecs("extendPaymentTtl").encoder;
export const getExtendPaymentTtlInstructionDataDecoder = (): FixedSizeDecoder<ExtendPaymentTtlInstructionData> =>
  codecs("extendPaymentTtl").decoder;
export const decodeExtendPaymentTtlInstructionData = (
  data: ReadonlyUint8Array,
): ExtendPaymentTtlInstructionData | null => codecs("extendPaymentTtl").safeDecode(data);

export const getSubmitDeliveryInstructionDataEncoder = (): FixedSizeEncoder<DeliveryHashInstructionData> =>
  codecs("submitDelivery").encoder;
export const getSubmitDeliveryInstructionDataDecoder = (): FixedSizeDecoder<DeliveryHashInstructionData> =>
  codecs("submitDelivery").decoder;
export const decodeSubmitDeliveryInstructionData = (data: ReadonlyUint8Array): DeliveryHashInstructionData | null =>
  codecs("submitDelivery").safeDecode(data);

export const getApproveDeliveryInstructionDataEncoder = (): FixedSizeEncoder<DeliveryHashInstructionData> =>
  codecs("approveDelivery").encoder;
export const getApproveDeliveryInstructionDataDecoder = (): FixedSizeDecoder<DeliveryHashInstructionData> =>
  codecs("approveDelivery").decoder;
export const decodeApproveDeliveryInstructionData = (data: ReadonlyUint8Array): DeliveryHashInstructionData | null =>
  codecs("approveDelivery").safeDecode(data);

export const getConfirmOracleInstructionDataEncoder = (): FixedSizeEncoder<ConfirmOracleInstructionData> =>
  codecs("confirmOracle").encoder;
export const getConfirmOracleInstructionDataDecoder = (): FixedSizeDecoder<ConfirmOracleInstructionData> =>
  codecs("confirmOracle").decoder;
export const decodeConfirmOracleInstructionData = (data: ReadonlyUint8Array): ConfirmOracleInstructionData | null =>
  codecs("confirmOracle").safeDecode(data);

export const getProposeMutualActionInstructionDataEncoder = (): FixedSizeEncoder<MutualActionInstructionData> =>
  codecs("proposeMutualAction").encoder;
export const getProposeMutualActionInstructionDataDecoder = (): FixedSizeDecoder<MutualActionInstructionData> =>
  codecs("proposeMutualAction").decoder;
export const decodeProposeMutualActionInstructionData = (
  data: ReadonlyUint8Array,
): MutualActionInstructionData | null => codecs("proposeMutualAction").safeDecode(data);

export const getAcceptMutualActionInstructionDataEncoder = (): FixedSizeEncoder<MutualActionInstructionData> =>
  codecs("acceptMutualAction").encoder;
export const getAcceptMutualActionInstructionDataDecoder = (): FixedSizeDecoder<MutualActionInstructionData> =>
  codecs("acceptMutualAction").decoder;
export const decodeAcceptMutualActionInstructionData = (
  data: ReadonlyUint8Array,
): MutualActionInstructionData | null => codecs("acceptMutualAction").safeDecode(data);

export const getDisputePaymentInstructionDataEncoder = (): FixedSizeEncoder<DisputePaymentInstructionData> =>
  codecs("disputePayment").encoder;
export const getDisputePaymentInstructionDataDecoder = (): FixedSizeDecoder<DisputePaymentInstructionData> =>
  codecs("disputePayment").decoder;
export const decodeDisputePaymentInstructionData = (data: ReadonlyUint8Array): DisputePaymentInstructionData | null =>
  codecs("disputePayment").safeDecode(data);

export const getResolveWithSplitInstructionDataEncoder = (): FixedSizeEncoder<ResolveWithSplitInstructionData> =>
  codecs("resolveWithSplit").encoder;
export const getResolveWithSplitInstructionDataDecoder = (): FixedSizeDecoder<ResolveWithSplitInstructionData> =>
  codecs("resolveWithSplit").decoder;
export const decodeResolveWithSplitInstructionData = (
  data: ReadonlyUint8Array,
): ResolveWithSplitInstructionData | null => codecs("resolveWithSplit").safeDecode(data);

// ===================================================================================================
// Builder inputs and builders (account lists: see the table)

/** The PDAs every payment instruction names after its signer. */
interface PaymentAccountsInput {
  programId: Address;
  bank: Address;
  /** The program-wide Config PDA. */
  config: Address;
  escrow: Address;
  payment: Address;
}
interface PaymentExtAccountsInput extends PaymentAccountsInput {
  paymentExt: Address;
}

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

export function getFundPaymentInstruction(input: FundPaymentInstructionInput): ProgramInstruction {
  return build("fundPayment", input.kind, input, { ...input, mint: fundPaymentMint(input) });
}

export function getFundPaymentV2Instruction(input: FundPaymentV2InstructionInput): ProgramInstruction {
  return build("fundPaymentV2", input.kind, input, { ...input, mint: fundPaymentMint(input) });
}

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

/** Pays the escrowed amount (less fees) to the seller. */
export function getReleasePaymentInstruction(input: PayoutInstructionInput): ProgramInstruction {
  return build("releasePayment", input.kind, input, undefined);
}

/** Returns the escrowed amount to the buyer. */
export function getRefundPaymentInstruction(input: PayoutInstructionInput): ProgramInstruction {
  return build("refundPayment", input.kind, input, undefined);
}

export interface ClosePaymentInstructionInput extends PaymentAccountsInput {
  caller: AddressOrSigner;
  /** Receives the Payment account's rent. */
  buyer: Address;
}
export function getClosePaymentInstruction(input: ClosePaymentInstructionInput): ProgramInstruction {
  return build("closePayment", "only", input, undefined);
}

export interface ExtendPaymentTtlInstructionInput extends PaymentAccountsInput, ExtendPaymentTtlInstructionData {
  buyer: AddressOrSigner;
}
export function getExtendPaymentTtlInstruction(input: ExtendPaymentTtlInstructionInput): ProgramInstruction {
  return build("extendPaymentTtl", "only", input, input);
}

export interface SubmitDeliveryInstructionInput extends PaymentAccountsInput, DeliveryHashInstructionData {
  /** Must be Payment.seller. */
  seller: AddressOrSigner;
}
export function getSubmitDeliveryInstruction(input: SubmitDeliveryInstructionInput): ProgramInstruction {
  return build("submitDelivery", "only", input, input);
}

export interface ApproveDeliveryInstructionInput extends PaymentAccountsInput, DeliveryHashInstructionData {
  buyer: AddressOrSigner;
}
export function getApproveDeliveryInstruction(input: ApproveDeliveryInstructionInput): ProgramInstruction {
  return build("approveDelivery", "only", input, input);
}

export interface ConfirmOracleInstructionInput extends PaymentAccountsInput, ConfirmOracleInstructionData {
  oracle: AddressOrSigner;
}
export function getConfirmOracleInstruction(input: ConfirmOracleInstructionInput): ProgramInstruction {
  return build("confirmOracle", "only", input, input);
}

export interface MutualActionInstructionInput extends PaymentExtAccountsInput, MutualActionInstructionData {
  /** The buyer or the seller (Accept: the party that did not propose). */
  party: AddressOrSigner;
}
export function getProposeMutualActionInstruction(input: MutualActionInstructionInput): ProgramInstruction {
  return build("proposeMutualAction", "only", input, input);
}
export function getAcceptMutualActionInstruction(input: MutualActionInstructionInput): ProgramInstruction {
  return build("acceptMutualAction", "only", input, input);
}

export interface DisputePaymentInstructionInput extends PaymentExtAccountsInput, DisputePaymentInstructionData {
  buyer: AddressOrSigner;
}
export function getDisputePaymentInstruction(input: DisputePaymentInstructionInput): ProgramInstruction {
  return build("disputePayment", "only", input, input);
}

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

export function getResolveWithSplitInstruction(input: ResolveWithSplitInstructionInput): ProgramInstruction {
  return build("resolveWithSplit", input.kind, input, input);
}

// ===================================================================================================
// Recognising a funding instruction (verifier side): account names come from the same table

type SlotNames<TLayout extends readonly AccountSlot[]> = TLayout[number][0];
type AccountsNamed<TLayout extends readonly AccountSlot[]> = { readonly [K in SlotNames<TLayout>]: AccountMeta };

export type FundPaymentSolAccounts = AccountsNamed<typeof FUND_PAYMENT_ACCOUNTS.sol>;
export type FundPaymentSplAccounts = AccountsNamed<typeof FUND_PAYMENT_ACCOUNTS.spl>;
export type FundPaymentV2SolAccounts = AccountsNamed<typeof FUND_PAYMENT_V2_ACCOUNTS.sol>;
export type FundPaymentV2SplAccounts = AccountsNamed<typeof FUND_PAYMENT_V2_ACCOUNTS.spl>;

export type ParsedFundPaymentInstruction =
  | { kind: "sol"; data: FundPaymentInstructionData; accounts: FundPaymentSolAccounts }
  | { kind: "spl"; data: FundPaymentInstructionData; accounts: FundPaymentSplAccounts };

export type ParsedFundPaymentV2Instruction =
  | { kind: "sol"; data: FundPaymentV2InstructionData; accounts: FundPaymentV2SolAccounts }
  | { kind: "spl"; data: FundPaymentV2InstructionData; accounts: FundPaymentV2SplAccounts };

function nameAccounts<const TLayout extends readonly AccountSlot[]>(
  layout: TLayout,
  metas: readonly { address: Address; role: AccountMeta["role"] }[],
): AccountsNamed<TLayout> | null {
  if (metas.length !== layout.length) return null;
  const named: Record<string, AccountMeta> = {};
  layout.forEach(([name], index) => {
    const meta = metas[index];
    if (meta !== undefined) named[name] = { address: meta.address, role: meta.role };
  });
  // Every name was filled above (lengths are equal), which is what the mapped type states.
  return named as AccountsNamed<TLayout>;
}

/** Decodes one funding shape; SOL when data.mint is the zero address. */
function parseFunding<
  TData extends FundPaymentInstructionData,
  const TSol extends readonly AccountSlot[],
  const TSpl extends readonly AccountSlot[],
>(
  instruction: Instruction,
  programId: Address,
  decode: (data: ReadonlyUint8Array) => TData | null,
  layouts: { sol: TSol; spl: TSpl },
):
  | { kind: "sol"; data: TData; accounts: AccountsNamed<TSol> }
  | { kind: "spl"; data: TData; accounts: AccountsNamed<TSpl> }
  | null {
  if (instruction.programAddress !== programId || instruction.data === undefined) return null;
  const data = decode(instruction.data);
  if (data === null) return null;
  const metas = instruction.accounts ?? [];
  if (data.mint === NATIVE_SOL_ESCROW_MINT) {
    const accounts = nameAccounts(layouts.sol, metas);
    return accounts === null ? null : { kind: "sol", data, accounts };
  }
  const accounts = nameAccounts(layouts.spl, metas);
  return accounts === null ? null : { kind: "spl", data, accounts };
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
  return parseFunding(instruction, programId, decodeFundPaymentInstructionData, FUND_PAYMENT_ACCOUNTS);
}

/** As parseFundPaymentInstruction, for FundPaymentV2 (8) with its trailing PaymentExt account. */
export function parseFundPaymentV2Instruction(
  instruction: Instruction,
  programId: Address,
): ParsedFundPaymentV2Instruction | null {
  return parseFunding(instruction, programId, decodeFundPaymentV2InstructionData, FUND_PAYMENT_V2_ACCOUNTS);
}
