import type { Address } from "@solana/kit";
import { decodeBase58 } from "../../../chain/base58";
import { parseComputeBudgetData } from "../../../chain/compute-budget";
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  LIGHTHOUSE_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from "../../../chain/token-programs";
import type { DecodedInstruction, DecodedTransaction } from "../../../chain/wire-transaction";
import type { Refusal, RejectionReason } from "../../../x402/payment-verdict";
import { EXACT_REQUIRED_SIGNATURES, type PaymentTransfer } from "../verify-rules";

/**
 * The `exact` rail's rules for a smart-wallet payment (docs/money-rules.md "Smart-wallet payments"), pure: the buyer's
 * transaction calls a wallet program at top level and the token transfer happens inside it (a CPI signed by the
 * wallet's PDA), so what the payment does is read from a simulation's inner instructions, not from its layout.
 *
 * Before the simulation (checkSmartWalletTransaction): the same envelope as every exact payment (no lookup tables, no
 * durable nonce, the fee payer pays and signs, exactly two signers), every top-level program on the operator's list
 * (ComputeBudget and Memo aside), the fee payer in no instruction, compute and priority caps of their own, the memo.
 * After it (findSmartWalletPayment): the fee payer in no inner instruction, exactly one TransferChecked of exactly the
 * amount of the asset into the payee's token account, and nothing that takes from, closes, freezes or re-delegates
 * that account. Reason names are the official @x402/svm facilitator's `ErrSmartWallet*` where it has one.
 */

export interface SmartWalletPolicy {
  feePayer: Address;
  allowedPrograms: ReadonlySet<string>;
  maxComputeUnits: number;
  maxPriorityFeeMicroLamports: bigint;
  /** `extra.memo`: exactly one Memo carrying it. */
  memo?: string;
}

const refuse = (reason: RejectionReason, message: string): Refusal => ({ reason, message });

const SYSTEM_ADVANCE_NONCE = 4;
const isFreeTopLevel = (program: string) =>
  program === COMPUTE_BUDGET_PROGRAM_ADDRESS || program === MEMO_PROGRAM_ADDRESS || program === MEMO_V1_PROGRAM_ADDRESS;

/** A transaction the smart-wallet path should judge: it calls a wallet program of the list at top level. */
export function callsSmartWallet(tx: DecodedTransaction, allowedPrograms: ReadonlySet<string>): boolean {
  return tx.instructions.some(
    (ix) => ix.programAddress !== LIGHTHOUSE_PROGRAM_ADDRESS && allowedPrograms.has(ix.programAddress),
  );
}

/** The rules a smart-wallet payment must meet before it is simulated; null when it meets them. */
export function checkSmartWalletTransaction(tx: DecodedTransaction, policy: SmartWalletPolicy): Refusal | null {
  if (tx.usesAddressLookupTables) {
    return refuse(
      "invalid_exact_svm_payload_address_lookup_tables",
      "Transactions that load accounts from address lookup tables are not accepted; a lookup table can hide the fee " +
        "payer among an instruction's accounts",
    );
  }
  if (tx.feePayer !== policy.feePayer) {
    return refuse(
      "invalid_exact_svm_fee_payer_mismatch",
      `The transaction fee payer ${tx.feePayer} is not this facilitator's fee payer ${policy.feePayer}`,
    );
  }
  if (tx.numRequiredSignatures !== EXACT_REQUIRED_SIGNATURES) {
    return refuse(
      tx.numRequiredSignatures > EXACT_REQUIRED_SIGNATURES
        ? "invalid_exact_svm_payload_excessive_signers"
        : "invalid_exact_svm_payload_missing_signer",
      `The transaction ` +
        `requires ${tx.numRequiredSignatures} signatures; a smart-wallet payment has ` +
        `exactly ${EXACT_REQUIRED_SIGNATURES} (the fee payer and the wallet's signing key), since every other one ` +
        `costs the fee payer a signature fee`,
    );
  }
  const first = tx.instructions[0];
  if (first && first.programAddress === SYSTEM_PROGRAM_ADDRESS && readU32(first.data) === SYSTEM_ADVANCE_NONCE) {
    return refuse(
      "invalid_exact_svm_payload_durable_nonce",
      "Durable-nonce transactions are not accepted; use a recent blockhash",
    );
  }
  for (const ix of tx.instructions) {
    if (ix.programAddress === policy.feePayer || ix.accounts.includes(policy.feePayer)) {
      return refuse(
        "invalid_exact_svm_smart_wallet_fee_payer_not_isolated",
        `The facilitator fee payer appears in an instruction of ` +
          `program ${ix.programAddress}; it may only pay the network fee`,
      );
    }
    if (!isFreeTopLevel(ix.programAddress) && !policy.allowedPrograms.has(ix.programAddress)) {
      return refuse(
        "invalid_exact_svm_smart_wallet_program_not_allowed",
        `Program ${ix.programAddress} is not one of the smart-wallet programs this facilitator accepts at top level`,
      );
    }
  }
  return checkComputeBudget(tx.instructions, policy) ?? checkMemo(tx.instructions, policy.memo);
}

/** At most one limit and one price, each within the smart-wallet caps, and no other ComputeBudget instruction. */
function checkComputeBudget(instructions: DecodedInstruction[], policy: SmartWalletPolicy): Refusal | null {
  let limits = 0;
  let prices = 0;
  for (const ix of instructions) {
    if (ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    if (ix.data.length === 0)
      return refuse(
        "invalid_exact_svm_smart_wallet_malformed_compute_budget",
        "A ComputeBudget instruction has no data",
      );
    const parsed = parseComputeBudgetData(ix.data);
    if (parsed.kind === "setComputeUnitLimit") {
      if (++limits > 1)
        return refuse("invalid_exact_svm_smart_wallet_malformed_compute_limit", "More than one SetComputeUnitLimit");
      if (parsed.units > policy.maxComputeUnits) {
        return refuse(
          "invalid_exact_svm_smart_wallet_compute_units_too_high",
          `Compute unit limit ${parsed.units} exceeds the smart-wallet maximum ${policy.maxComputeUnits}`,
        );
      }
    } else if (parsed.kind === "setComputeUnitPrice") {
      if (++prices > 1)
        return refuse("invalid_exact_svm_smart_wallet_malformed_compute_price", "More than one SetComputeUnitPrice");
      if (parsed.microLamports > policy.maxPriorityFeeMicroLamports) {
        return refuse(
          "invalid_exact_svm_smart_wallet_priority_fee_too_high",
          `Compute unit ` +
            `price ${parsed.microLamports} micro-lamports exceeds the smart-wallet ` +
            `maximum ${policy.maxPriorityFeeMicroLamports}`,
        );
      }
    } else if (ix.data[0] === 2 || ix.data[0] === 3) {
      return refuse(
        ix.data[0] === 2
          ? "invalid_exact_svm_smart_wallet_malformed_compute_limit"
          : "invalid_exact_svm_smart_wallet_malformed_compute_price",
        "A ComputeBudget instruction has the wrong length",
      );
    } else {
      return refuse(
        "invalid_exact_svm_smart_wallet_unsupported_compute_budget_instruction",
        `ComputeBudget instruction ${parsed.discriminator} is not accepted`,
      );
    }
  }
  // Without a limit the runtime grants 200,000 units per instruction; priced, that could pass the cap unseen.
  if (limits === 0 && prices > 0) {
    const implied = 200_000 * instructions.filter((ix) => ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS).length;
    if (implied > policy.maxComputeUnits) {
      return refuse(
        "invalid_exact_svm_smart_wallet_compute_units_too_high",
        `A compute unit price without a SetComputeUnitLimit ` +
          `implies ${implied} units, above the smart-wallet maximum ${policy.maxComputeUnits}`,
      );
    }
  }
  return null;
}

function checkMemo(instructions: DecodedInstruction[], expected: string | undefined): Refusal | null {
  if (expected === undefined) return null;
  const memos = instructions.filter(
    (ix) => ix.programAddress === MEMO_PROGRAM_ADDRESS || ix.programAddress === MEMO_V1_PROGRAM_ADDRESS,
  );
  if (memos.length !== 1) {
    return refuse(
      "invalid_exact_svm_payload_memo_count",
      `extra.memo is set, so the payment needs exactly one Memo instruction carrying it; found ${memos.length}`,
    );
  }
  const actual = new TextDecoder().decode(memos[0]!.data);
  return actual === expected
    ? null
    : refuse("invalid_exact_svm_payload_memo_mismatch", "The Memo instruction's data is not extra.memo");
}

// -------------------------------------------------------------------------------------------------
// What the simulation shows

/** One inner instruction as a node reports it: parsed (known programs) or partially decoded. */
export type SimulatedInstruction =
  | { programId: string; parsed: unknown; program?: string }
  | { programId: string; accounts: string[]; data: string };

export interface SimulatedInnerInstructions {
  index: number;
  instructions: SimulatedInstruction[];
}

/** A token instruction read from either form: its kind, the accounts in its program's order, and what it moves. */
interface TokenEffect {
  kind: "transferChecked" | "transfer" | "other";
  programId: string;
  /** The account it debits, closes, freezes, burns from or re-delegates (the first account of those instructions). */
  subject?: string;
  mint?: string;
  destination?: string;
  authority?: string;
  amount?: bigint;
  decimals?: number;
}

export interface ExpectedPayment {
  feePayer: Address;
  mint: Address;
  /** The payee's token account for the mint. */
  destination: Address;
  amount: bigint;
}

/**
 * The one payment transfer among the simulation's inner instructions, or the rule it breaks. `inner` is the
 * simulateTransaction answer's `innerInstructions` (null or missing: the node gave none, which is a refusal).
 */
export function findSmartWalletPayment(
  inner: unknown,
  expected: ExpectedPayment,
): { ok: true; transfer: PaymentTransfer } | { ok: false; rejection: Refusal } {
  if (!Array.isArray(inner)) {
    return {
      ok: false,
      rejection: refuse(
        "invalid_exact_svm_smart_wallet_simulation_failed",
        "The RPC node's simulation returned no inner instructions",
      ),
    };
  }
  const effects: TokenEffect[] = [];
  for (const group of inner as SimulatedInnerInstructions[]) {
    for (const ix of Array.isArray(group?.instructions) ? group.instructions : []) {
      if (mentions(ix, expected.feePayer)) {
        return {
          ok: false,
          rejection: refuse(
            "invalid_exact_svm_smart_wallet_fee_payer_not_isolated",
            `An inner instruction of program ${String(ix?.programId)} uses the facilitator fee payer`,
          ),
        };
      }
      const effect = tokenEffectOf(ix);
      if (effect) effects.push(effect);
    }
  }
  const transfers = effects.filter((e) => e.kind !== "other");
  const matching = transfers.filter(
    (e) =>
      e.kind === "transferChecked" &&
      e.mint === expected.mint &&
      e.destination === expected.destination &&
      e.amount === expected.amount,
  );
  if (matching.length === 0) {
    return {
      ok: false,
      rejection:
        transfers.length === 0
          ? refuse("invalid_exact_svm_smart_wallet_no_transfer_in_simulation", "The simulation moves no tokens")
          : refuse(
              "invalid_exact_svm_smart_wallet_transfer_mismatch",
              `No TransferChecked in the simulation moves ` +
                `exactly ${expected.amount} of ${expected.mint} into ${expected.destination}`,
            ),
    };
  }
  if (matching.length > 1) {
    return {
      ok: false,
      rejection: refuse(
        "invalid_exact_svm_smart_wallet_multiple_matching_transfers",
        `The simulation pays ${expected.destination} ${matching.length} times; an exact payment pays once`,
      ),
    };
  }
  if (effects.some((e) => e.subject === expected.destination)) {
    return {
      ok: false,
      rejection: refuse(
        "invalid_exact_svm_smart_wallet_destination_touched",
        `An inner instruction takes from, closes, freezes or re-delegates the payee's token ` +
          `account ${expected.destination}`,
      ),
    };
  }
  const paid = matching[0]!;
  if (!paid.authority || !paid.subject) {
    return {
      ok: false,
      rejection: refuse("invalid_exact_svm_smart_wallet_transfer_mismatch", "The payment transfer names no authority"),
    };
  }
  return {
    ok: true,
    transfer: {
      kind: "spl",
      source: paid.subject as Address,
      destination: expected.destination,
      authority: paid.authority as Address,
      amount: expected.amount,
      mint: expected.mint,
      tokenProgram: paid.programId as Address,
      ...(paid.decimals === undefined ? {} : { decimals: paid.decimals }),
    },
  };
}

/** Whether an inner instruction names `key` anywhere: its program, its accounts, or any address in its parsed info. */
function mentions(ix: unknown, key: string): boolean {
  if (typeof ix !== "object" || ix === null) return false;
  const record = ix as Record<string, unknown>;
  if (record.programId === key) return true;
  if (Array.isArray(record.accounts) && record.accounts.includes(key)) return true;
  return containsString(record.parsed, key);
}

function containsString(value: unknown, key: string): boolean {
  if (value === key) return true;
  if (Array.isArray(value)) return value.some((item) => containsString(item, key));
  if (typeof value === "object" && value !== null)
    return Object.values(value).some((item) => containsString(item, key));
  return false;
}

const isTokenProgramId = (id: unknown) => id === TOKEN_PROGRAM_ADDRESS || id === TOKEN_2022_PROGRAM_ADDRESS;

/** Token instructions whose first account is the one they take from, close, freeze, burn from or re-delegate. */
const SUBJECT_FIRST_TYPES = new Set([
  "transfer",
  "transferChecked",
  "approve",
  "approveChecked",
  "setAuthority",
  "burn",
  "burnChecked",
  "closeAccount",
  "freezeAccount",
]);
/**
 * Their discriminators: Transfer 3, Approve 4, SetAuthority 6, Burn 8, CloseAccount 9, FreezeAccount 10,
 * TransferChecked 12, ApproveChecked 13, BurnChecked 15.
 */
const SUBJECT_FIRST_DISCRIMINATORS = new Set([3, 4, 6, 8, 9, 10, 12, 13, 15]);

function tokenEffectOf(ix: SimulatedInstruction): TokenEffect | null {
  if (!isTokenProgramId(ix?.programId)) return null;
  if ("parsed" in ix) {
    const parsed = ix.parsed as { type?: unknown; info?: Record<string, unknown> } | null;
    const type = typeof parsed?.type === "string" ? parsed.type : "";
    const info = parsed?.info ?? {};
    const subjectField =
      type === "closeAccount" || type === "setAuthority" || type.startsWith("burn") || type === "freezeAccount"
        ? "account"
        : "source";
    const subject = SUBJECT_FIRST_TYPES.has(type)
      ? stringOr(info[subjectField] ?? info.account ?? info.mint)
      : undefined;
    const authority = stringOr(info.authority ?? info.multisigAuthority);
    if (type === "transferChecked") {
      const tokenAmount = info.tokenAmount as { amount?: unknown } | undefined;
      return {
        kind: "transferChecked",
        programId: ix.programId,
        subject,
        mint: stringOr(info.mint),
        destination: stringOr(info.destination),
        authority,
        amount: toBigInt(tokenAmount?.amount),
        decimals:
          typeof (tokenAmount as { decimals?: unknown })?.decimals === "number"
            ? (tokenAmount as { decimals: number }).decimals
            : undefined,
      };
    }
    if (type === "transfer") {
      return {
        kind: "transfer",
        programId: ix.programId,
        subject,
        destination: stringOr(info.destination),
        authority,
        amount: toBigInt(info.amount),
      };
    }
    return { kind: "other", programId: ix.programId, subject };
  }
  const data = typeof ix.data === "string" ? decodeBase58(ix.data) : null;
  const accounts = Array.isArray(ix.accounts) ? ix.accounts : [];
  // A token instruction a node could not parse: judged by its raw bytes, and never taken for the payment.
  if (!data || data.length === 0) return { kind: "other", programId: ix.programId };
  const subject = SUBJECT_FIRST_DISCRIMINATORS.has(data[0]!) ? accounts[0] : undefined;
  return { kind: data[0] === 12 || data[0] === 3 ? "transfer" : "other", programId: ix.programId, subject };
}

const stringOr = (value: unknown) => (typeof value === "string" ? value : undefined);

function toBigInt(value: unknown): bigint | undefined {
  return typeof value === "string" && /^\d{1,20}$/.test(value) ? BigInt(value) : undefined;
}

function readU32(data: Uint8Array): number {
  return data.length < 4 ? -1 : new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
}
