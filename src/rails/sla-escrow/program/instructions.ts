/**
 * SLA-Escrow instructions, described ONCE as data in `SLA_ESCROW_INSTRUCTIONS`: discriminator, body
 * fields (kit codecs) and the ordered account slots (name = the builder input key, role, or a fixed
 * address) per variant (SOL / SPL), plus the optional tails of ReleasePayment / RefundPayment.
 * Instructions 0–6 follow the normative ABI (its §5, summarised in docs/sla-escrow-abi.md "Instructions we
 * build"); 7–12 and the extended-payment tail follow pr402's encoders
 * (`src/chain/solana_sla_escrow.rs`), the only public source for program v0.5.
 *
 * The table, its codecs and builders follow ../instruction-table.ts, like the other programs' clients.
 * Builders are synchronous and take every address explicitly; derive PDAs with ./pda.ts first.
 * Codecs check bytes, not policy: TTL bounds, seller_bps ≤ 10,000 and similar rules are exported as
 * constants for the verifier and builders in `schemes/` to enforce.
 */
import {
  type Address,
  address,
  combineCodec,
  getAddressCodec,
  getI64Codec,
  getStructCodec,
  getU8Codec,
  getU16Codec,
  getU64Codec,
  getUnitCodec,
  padRightCodec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { getBytes32Decoder, getBytes32Encoder } from "../../../chain/program/bytes32-codec";
import {
  type AccountSlot,
  type AddressOrSigner,
  accountMetas,
  type ProgramInstruction,
  type Role,
} from "../../../chain/program/instruction-accounts";
import { instructionSpec, tableBuilder } from "../../../chain/program/instruction-table";
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

/** Total data size of FundPayment (0), discriminator included: what the verifier demands. */
export const FUND_PAYMENT_INSTRUCTION_DATA_SIZE = 177;

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

interface FundPaymentV2InstructionData extends FundPaymentInstructionData {
  /** Passed through as given; the ABI does not say which value means "use the Config default". */
  closureDelayOverrideSeconds: bigint;
  refundCooldownOverrideSeconds: bigint;
  deliveryCutoffOverrideSeconds: bigint;
  arbitrationWindowSeconds: bigint;
  /** Base units of the mint. */
  minOracleTip: bigint;
}

interface ExtendPaymentTtlInstructionData {
  additionalSeconds: bigint;
}

interface DeliveryHashInstructionData {
  deliveryHash: ReadonlyUint8Array;
}

interface ConfirmOracleInstructionData {
  deliveryHash: ReadonlyUint8Array;
  resolutionHash: ReadonlyUint8Array;
  reason: number;
  /** See RESOLUTION_STATE (1 approved, 2 rejected). */
  state: number;
}

interface MutualActionInstructionData {
  /** See MUTUAL_ACTION. */
  action: number;
  /** For EXTEND_TTL: the seconds to add. */
  value: bigint;
  /** For ROTATE_ADJUDICATOR: the new adjudicator. */
  pubkey: Address;
}

interface DisputePaymentInstructionData {
  disputeReasonHash: ReadonlyUint8Array;
}

interface ResolveWithSplitInstructionData {
  /** Share of the payment to the seller, ≤ MAX_SELLER_SPLIT_BPS; the rest goes back to the buyer. */
  sellerBps: number;
  reason: number;
  resolutionHash: ReadonlyUint8Array;
  expectedDeliveryHash: ReadonlyUint8Array;
}

// ===================================================================================================
// The table

const bytes32 = combineCodec(getBytes32Encoder(), getBytes32Decoder());
const SYSTEM = ["systemProgram", "r", SYSTEM_PROGRAM_ADDRESS] as const;
const ATA_PROGRAM = ["associatedTokenProgram", "r", ASSOCIATED_TOKEN_PROGRAM_ADDRESS] as const;
const RENT_SYSVAR = ["rentSysvar", "r", address("SysvarRent111111111111111111111111111111111")] as const;
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
  [
    [signer, signerRole],
    ["bank", "r"],
    ["config", "r"],
    ["escrow", escrowRole],
    ["payment", "w"],
  ] as const;

/** docs/sla-escrow-abi.md, ABI §5.2. */
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
/** pr402: the FundPayment list with the PaymentExt appended. */
const FUND_PAYMENT_V2_ACCOUNTS = {
  sol: [...FUND_PAYMENT_ACCOUNTS.sol, ["paymentExt", "w"]],
  spl: [...FUND_PAYMENT_ACCOUNTS.spl, ["paymentExt", "w"]],
} as const;

/**
 * docs/sla-escrow-abi.md, ABI §5.3: the caller pays the network fee (and the seller's token account when the program
 * creates it).
 */
const RELEASE_PAYMENT_ACCOUNTS = {
  sol: [...PAYMENT_HEAD("caller", "sw", "w"), SOL_MINT, ["solStorage", "w"], ["seller", "w"], SYSTEM],
  spl: [
    ...PAYMENT_HEAD("caller", "sw", "w"),
    ["mint", "r"],
    ["escrowAta", "w"],
    ["sellerAta", "w"],
    ["seller", "w"],
    ["tokenProgram", "r"],
    ATA_PROGRAM,
    SYSTEM,
  ],
} as const;
/** docs/sla-escrow-abi.md, ABI §5.4. */
const REFUND_PAYMENT_ACCOUNTS = {
  sol: [...PAYMENT_HEAD("caller", "sw", "w"), SOL_MINT, ["solStorage", "w"], ["buyer", "w"], SYSTEM],
  spl: [
    ...PAYMENT_HEAD("caller", "sw", "w"),
    ["mint", "r"],
    ["escrowAta", "w"],
    ["buyerAta", "w"],
    ["tokenProgram", "r"],
  ],
} as const;
/**
 * Optional tails of Release/Refund, in this order (pr402's encoders): an extended (state 10) payment's PaymentExt
 * and its rent recipient (the recorded buyer), then the oracle tip accounts (docs/sla-escrow-abi.md, ABI §5.3 / §5.4
 * optional indices).
 */
const PAYOUT_EXTENDED_TAIL = [
  ["paymentExt", "w"],
  ["buyer", "w"],
] as const;
const ORACLE_TIP_TAILS = {
  release: {
    sol: [["oracle", "w"]],
    spl: [
      ["oracleAta", "w"],
      ["oracle", "w"],
    ],
  },
  refund: { sol: [["oracle", "w"]], spl: [["oracleAta", "w"], ["oracle", "w"], ATA_PROGRAM, SYSTEM] },
} as const;

/**
 * docs/sla-escrow-abi.md, ABI §5.7 (SubmitDelivery) and §5.8 (ConfirmOracle): the signer is not writable; pr402 lists
 * ApproveDelivery alike.
 */
const partyAccounts = <const P extends string, const R extends Role>(party: P, role: R) =>
  ({ only: PAYMENT_HEAD(party, role, "r") }) as const;
const paymentExtPartyAccounts = <const P extends string>(party: P) =>
  ({ only: [...PAYMENT_HEAD(party, "sw", "r"), ["paymentExt", "w"]] }) as const;

/** pr402's order. The buyer appears twice on purpose (rent recipient); the message merges the roles. */
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
    ["seller", "w"],
    ["buyerAta", "w"],
    ["buyer", "w"],
    ["tokenProgram", "r"],
    ATA_PROGRAM,
    SYSTEM,
    ["paymentExt", "w"],
    ["buyer", "w"],
    ["adjudicatorAta", "w"],
  ],
} as const;

const I = SLA_ESCROW_INSTRUCTION;
/** Every instruction, once: name, discriminator, body codec, account layouts per variant. */
const SLA_ESCROW_INSTRUCTIONS = {
  fundPayment: instructionSpec(
    "FundPayment",
    I.FUND_PAYMENT,
    getStructCodec(FUND_PAYMENT_FIELDS),
    FUND_PAYMENT_ACCOUNTS,
  ),
  releasePayment: instructionSpec("ReleasePayment", I.RELEASE_PAYMENT, getUnitCodec(), RELEASE_PAYMENT_ACCOUNTS),
  refundPayment: instructionSpec("RefundPayment", I.REFUND_PAYMENT, getUnitCodec(), REFUND_PAYMENT_ACCOUNTS),
  /** docs/sla-escrow-abi.md, ABI §5.5. */
  closePayment: instructionSpec("ClosePayment", I.CLOSE_PAYMENT, getUnitCodec(), {
    only: [["caller", "s"], ["buyer", "w"], ["bank", "r"], ["config", "r"], ["escrow", "w"], ["payment", "w"], SYSTEM],
  }),
  /** docs/sla-escrow-abi.md, ABI §5.6. */
  extendPaymentTtl: instructionSpec(
    "ExtendPaymentTTL",
    I.EXTEND_PAYMENT_TTL,
    getStructCodec([["additionalSeconds", getI64Codec()]]),
    {
      only: [...PAYMENT_HEAD("buyer", "s", "r"), SYSTEM, RENT_SYSVAR],
    },
  ),
  submitDelivery: instructionSpec(
    "SubmitDelivery",
    I.SUBMIT_DELIVERY,
    getStructCodec(DELIVERY_HASH_FIELDS),
    partyAccounts("seller", "s"),
  ),
  confirmOracle: instructionSpec(
    "ConfirmOracle",
    I.CONFIRM_ORACLE,
    getStructCodec([
      ["deliveryHash", bytes32],
      ["resolutionHash", bytes32],
      ["reason", getU16Codec()],
      ["state", padRightCodec(getU8Codec(), 5)],
    ]),
    partyAccounts("oracle", "s"),
  ),
  approveDelivery: instructionSpec(
    "ApproveDelivery",
    I.APPROVE_DELIVERY,
    getStructCodec(DELIVERY_HASH_FIELDS),
    partyAccounts("buyer", "sw"),
  ),
  fundPaymentV2: instructionSpec(
    "FundPaymentV2",
    I.FUND_PAYMENT_V2,
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
  proposeMutualAction: instructionSpec(
    "ProposeMutualAction",
    I.PROPOSE_MUTUAL_ACTION,
    getStructCodec(MUTUAL_ACTION_FIELDS),
    paymentExtPartyAccounts("party"),
  ),
  acceptMutualAction: instructionSpec(
    "AcceptMutualAction",
    I.ACCEPT_MUTUAL_ACTION,
    getStructCodec(MUTUAL_ACTION_FIELDS),
    paymentExtPartyAccounts("party"),
  ),
  disputePayment: instructionSpec(
    "DisputePayment",
    I.DISPUTE_PAYMENT,
    getStructCodec([["disputeReasonHash", bytes32]]),
    paymentExtPartyAccounts("buyer"),
  ),
  resolveWithSplit: instructionSpec(
    "ResolveWithSplit",
    I.RESOLVE_WITH_SPLIT,
    getStructCodec([
      ["sellerBps", getU16Codec()],
      ["reason", padRightCodec(getU16Codec(), 4)],
      ["resolutionHash", bytes32],
      ["expectedDeliveryHash", bytes32],
    ]),
    RESOLVE_WITH_SPLIT_ACCOUNTS,
  ),
};
const build = tableBuilder(SLA_ESCROW_INSTRUCTIONS);

/** FundPayment data from an untrusted transaction (null on a wrong length or discriminator): what verify reads. */
export const decodeFundPaymentInstructionData = (data: ReadonlyUint8Array): FundPaymentInstructionData | null =>
  SLA_ESCROW_INSTRUCTIONS.fundPayment.data.safeDecode(data);

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
interface FundPaymentSolInstructionInput extends FundPaymentCommonInput {
  kind: "sol";
  /** The escrow's SOL storage PDA. */
  solStorage: Address;
}
interface FundPaymentSplInstructionInput extends FundPaymentCommonInput {
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

/** What Release/Refund append after their fixed list; both optional, always in this order. */
interface PayoutTailsInput {
  /** An extended (state 10) payment: its PaymentExt, closed to the recorded buyer (pr402's tail). */
  extended?: { paymentExt: Address; buyer: Address };
  /**
   * The oracle's tip accounts: required when Payment.oracle_fee_bps > 0 and a verdict exists (resolution_state ≠ 0),
   * docs/sla-escrow-abi.md, ABI §5.3 / §5.4. `oracleAta` (SPL only): ATA(oracle, mint, token program).
   */
  oracleTip?: { oracle: Address; oracleAta?: Address };
}
interface PayoutCommonInput extends PaymentAccountsInput, PayoutTailsInput {
  /** Whoever triggers the payout and pays its network fee (a keeper, a party, the facilitator). */
  caller: AddressOrSigner;
}
type ReleasePaymentInstructionInput = PayoutCommonInput &
  (
    | { kind: "sol"; solStorage: Address; seller: Address }
    | {
        kind: "spl";
        mint: Address;
        escrowAta: Address;
        /** ATA(seller, mint, token program); the program creates it when absent, at the caller's cost. */
        sellerAta: Address;
        seller: Address;
        tokenProgram: Address;
      }
  );
type RefundPaymentInstructionInput = PayoutCommonInput &
  (
    | { kind: "sol"; solStorage: Address; buyer: Address }
    | { kind: "spl"; mint: Address; escrowAta: Address; buyerAta: Address; buyer?: Address; tokenProgram: Address }
  );

function payoutTail(input: PayoutCommonInput & { kind: "sol" | "spl" }, payout: "release" | "refund"): AccountSlot[] {
  const tail: AccountSlot[] = [];
  if (input.extended) tail.push(...PAYOUT_EXTENDED_TAIL);
  if (input.oracleTip) {
    if (input.kind === "spl" && input.oracleTip.oracleAta === undefined)
      throw new TypeError('missing account "oracleAta"');
    tail.push(...ORACLE_TIP_TAILS[payout][input.kind]);
  }
  return tail;
}

/** Tail values merged into the builder input; an extended payment's rent recipient must be the payout's buyer. */
function withTails<T extends PayoutCommonInput>(input: T): T & Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  if (input.extended) {
    const buyer = (input as { buyer?: Address }).buyer;
    if (buyer !== undefined && buyer !== input.extended.buyer)
      throw new RangeError("the PaymentExt's rent goes to the payment's buyer");
    extras.paymentExt = input.extended.paymentExt;
    extras.buyer = input.extended.buyer;
  }
  if (input.oracleTip) {
    extras.oracle = input.oracleTip.oracle;
    extras.oracleAta = input.oracleTip.oracleAta;
  }
  return { ...input, ...extras };
}

function payout(
  key: "releasePayment" | "refundPayment",
  input: ReleasePaymentInstructionInput | RefundPaymentInstructionInput,
): ProgramInstruction {
  const merged = withTails(input);
  return build(
    key,
    input.kind,
    merged,
    undefined,
    accountMetas(payoutTail(input, key === "releasePayment" ? "release" : "refund"), merged),
  );
}

/**
 * Pays the escrowed amount, less the escrow fee and any oracle tip, to Payment.seller (docs/sla-escrow-abi.md, ABI
 * §5.3).
 */
export function getReleasePaymentInstruction(input: ReleasePaymentInstructionInput): ProgramInstruction {
  return payout("releasePayment", input);
}

/** Returns the escrowed amount, less any oracle tip, to Payment.buyer (docs/sla-escrow-abi.md, ABI §5.4). */
export function getRefundPaymentInstruction(input: RefundPaymentInstructionInput): ProgramInstruction {
  return payout("refundPayment", input);
}

interface ClosePaymentInstructionInput extends PaymentAccountsInput {
  caller: AddressOrSigner;
  /** Payment.buyer: receives the Payment account's rent. */
  buyer: Address;
}
/** Closes a settled Payment once its closed_at passed (docs/sla-escrow-abi.md, ABI §5.5). */
export function getClosePaymentInstruction(input: ClosePaymentInstructionInput): ProgramInstruction {
  return build("closePayment", "only", input, undefined);
}

interface ExtendPaymentTtlInstructionInput extends PaymentAccountsInput, ExtendPaymentTtlInstructionData {
  buyer: AddressOrSigner;
}
export function getExtendPaymentTtlInstruction(input: ExtendPaymentTtlInstructionInput): ProgramInstruction {
  return build("extendPaymentTtl", "only", input, input);
}

interface SubmitDeliveryInstructionInput extends PaymentAccountsInput, DeliveryHashInstructionData {
  /** Must be Payment.seller. */
  seller: AddressOrSigner;
}
export function getSubmitDeliveryInstruction(input: SubmitDeliveryInstructionInput): ProgramInstruction {
  return build("submitDelivery", "only", input, input);
}

interface ApproveDeliveryInstructionInput extends PaymentAccountsInput, DeliveryHashInstructionData {
  buyer: AddressOrSigner;
}
export function getApproveDeliveryInstruction(input: ApproveDeliveryInstructionInput): ProgramInstruction {
  return build("approveDelivery", "only", input, input);
}

interface ConfirmOracleInstructionInput extends PaymentAccountsInput, ConfirmOracleInstructionData {
  oracle: AddressOrSigner;
}
export function getConfirmOracleInstruction(input: ConfirmOracleInstructionInput): ProgramInstruction {
  return build("confirmOracle", "only", input, input);
}

interface MutualActionInstructionInput extends PaymentExtAccountsInput, MutualActionInstructionData {
  /** The buyer or the seller (Accept: the party that did not propose). */
  party: AddressOrSigner;
}
export function getProposeMutualActionInstruction(input: MutualActionInstructionInput): ProgramInstruction {
  return build("proposeMutualAction", "only", input, input);
}
export function getAcceptMutualActionInstruction(input: MutualActionInstructionInput): ProgramInstruction {
  return build("acceptMutualAction", "only", input, input);
}

interface DisputePaymentInstructionInput extends PaymentExtAccountsInput, DisputePaymentInstructionData {
  buyer: AddressOrSigner;
}
export function getDisputePaymentInstruction(input: DisputePaymentInstructionInput): ProgramInstruction {
  return build("disputePayment", "only", input, input);
}

interface ResolveWithSplitCommonInput extends PaymentExtAccountsInput, ResolveWithSplitInstructionData {
  adjudicator: AddressOrSigner;
  seller: Address;
  /** Also the rent recipient: the list names the buyer a second time, writable, after PaymentExt. */
  buyer: Address;
}
interface ResolveWithSplitSolInstructionInput extends ResolveWithSplitCommonInput {
  kind: "sol";
  solStorage: Address;
}
interface ResolveWithSplitSplInstructionInput extends ResolveWithSplitCommonInput {
  kind: "spl";
  mint: Address;
  escrowAta: Address;
  sellerAta: Address;
  buyerAta: Address;
  adjudicatorAta: Address;
  tokenProgram: Address;
}
type ResolveWithSplitInstructionInput = ResolveWithSplitSolInstructionInput | ResolveWithSplitSplInstructionInput;

export function getResolveWithSplitInstruction(input: ResolveWithSplitInstructionInput): ProgramInstruction {
  return build("resolveWithSplit", input.kind, input, input);
}
