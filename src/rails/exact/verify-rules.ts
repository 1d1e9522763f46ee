import type { Address } from "@solana/kit";
import { parseComputeBudgetData } from "../../chain/compute-budget";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  isTokenProgram,
  LIGHTHOUSE_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  WRAPPED_SOL_MINT,
} from "../../chain/token-programs";
import type { PaymentFunds } from "../../chain/transaction-rejection";
import type { DecodedInstruction, DecodedTransaction } from "../../chain/wire-transaction";
import type { Refusal, RejectionReason } from "../../x402/payment-verdict";

/**
 * The fee-payer acceptance policy of the `exact` rail as pure rules over a decoded transaction.
 * Everything here is deny-by-default: an instruction is accepted only when it has a known role.
 */

/** A rule's refusal: the one rejection shape (payment-verdict's `Refusal`). */
export type Rejection = Refusal;

/** Where the payment must go, worked out from the requirements before any chain read. */
export type ExpectedDestination = { kind: "spl"; mint: Address } | { kind: "sol"; solStorage: Address };

export interface ExactPolicy {
  feePayer: Address;
  amount: bigint;
  maxComputeUnitLimit: number;
  maxComputeUnitPriceMicroLamports: bigint;
  destination: ExpectedDestination;
  /** `extra.memo` of the requirements: when set, exactly one Memo instruction carrying exactly these UTF-8 bytes. */
  memo?: string;
}

/** The payment transfer found in a transaction. */
export interface PaymentTransfer {
  kind: "spl" | "sol";
  /** Transfer authority (SPL) or sender (SOL): the buyer. */
  authority: Address;
  source: Address;
  destination: Address;
  amount: bigint;
  /** SPL only. */
  tokenProgram?: Address;
  mint?: Address;
  decimals?: number;
}

/** What the payment moves, in the payment core's rail-neutral words (native SOL or a token). */
export function fundsOf(transfer: Pick<PaymentTransfer, "kind">): PaymentFunds {
  return transfer.kind === "sol" ? "sol" : "token";
}

const SYSTEM_TRANSFER = 2;
const SYSTEM_ADVANCE_NONCE = 4;
const TOKEN_TRANSFER_CHECKED = 12;
const TOKEN_SYNC_NATIVE = 17;
const ATA_CREATE = 0;
const ATA_CREATE_IDEMPOTENT = 1;
/** Buyer authority + facilitator fee payer: every extra signer would cost the fee payer 5,000 lamports. */
export const EXACT_REQUIRED_SIGNATURES = 2;
const MAX_MEMOS = 1;
/**
 * Wallet guard instructions (Lighthouse assertions): Phantom adds one (now before the transfer, x402 PR #3318),
 * Solflare two; before and after together stay within four. They only read accounts, the fee payer may appear in
 * none of them (checked for every instruction), and their compute is inside the capped limit.
 */
const MAX_LIGHTHOUSE_INSTRUCTIONS = 4;

const reject = (reason: RejectionReason, message: string): { ok: false; rejection: Rejection } => ({
  ok: false,
  rejection: { reason, message },
});

/** Structural rules (no chain reads, no signature checks): returns the payment transfer or the first rule broken. */
export function checkExactTransaction(
  tx: DecodedTransaction,
  policy: ExactPolicy,
): { ok: true; transfer: PaymentTransfer } | { ok: false; rejection: Rejection } {
  if (tx.usesAddressLookupTables) {
    return reject(
      "invalid_exact_svm_payload_address_lookup_tables",
      "Transactions that load accounts from address lookup tables are not accepted; use static account keys only",
    );
  }
  if (tx.feePayer !== policy.feePayer) {
    return reject(
      "invalid_exact_svm_fee_payer_mismatch",
      `The transaction fee payer ${tx.feePayer} is not this facilitator's fee payer ${policy.feePayer}`,
    );
  }
  if (tx.numRequiredSignatures > EXACT_REQUIRED_SIGNATURES) {
    return reject(
      "invalid_exact_svm_payload_excessive_signers",
      `The transaction ` +
        `requires ${tx.numRequiredSignatures} signatures; an exact payment has ` +
        `exactly ${EXACT_REQUIRED_SIGNATURES} (fee payer and buyer)`,
    );
  }
  if (tx.numRequiredSignatures < EXACT_REQUIRED_SIGNATURES) {
    return reject(
      "invalid_exact_svm_payload_missing_signer",
      "The transaction has no buyer signer besides the fee payer",
    );
  }
  for (const ix of tx.instructions) {
    if (ix.accounts.includes(policy.feePayer)) {
      return reject(
        "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds",
        "The facilitator fee payer appears in an instruction's accounts; it may only pay the network fee",
      );
    }
  }
  if (tx.instructions.length === 0)
    return reject("invalid_exact_svm_payload_no_transfer_instruction", "The transaction has no instructions");
  const first = tx.instructions[0]!;
  if (first.programAddress === SYSTEM_PROGRAM_ADDRESS && readU32(first.data, 0) === SYSTEM_ADVANCE_NONCE) {
    return reject(
      "invalid_exact_svm_payload_durable_nonce",
      "Durable-nonce transactions are not accepted; use a recent blockhash",
    );
  }

  const compute = checkComputeBudget(tx.instructions, policy);
  if (compute) return { ok: false, rejection: compute };

  const transfers: PaymentTransfer[] = [];
  const memos: DecodedInstruction[] = [];
  let guards = 0;
  for (const [index, ix] of tx.instructions.entries()) {
    const program = ix.programAddress;
    if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    if (program === LIGHTHOUSE_PROGRAM_ADDRESS) {
      if (++guards > MAX_LIGHTHOUSE_INSTRUCTIONS)
        return reject(
          "invalid_exact_svm_payload_lighthouse_count",
          `At most ${MAX_LIGHTHOUSE_INSTRUCTIONS} Lighthouse instructions are accepted`,
        );
      continue;
    }
    if (program === MEMO_PROGRAM_ADDRESS || program === MEMO_V1_PROGRAM_ADDRESS) {
      memos.push(ix);
      if (memos.length > MAX_MEMOS)
        return reject("invalid_exact_svm_payload_memo_count", `At most ${MAX_MEMOS} memo instruction is accepted`);
      continue;
    }
    if (isTokenProgram(program)) {
      if (ix.data[0] === TOKEN_TRANSFER_CHECKED) {
        const transfer = parseTransferChecked(ix);
        if (!transfer)
          return reject(
            "invalid_exact_svm_payload_transaction_instructions",
            `Instruction ${index} is a malformed TransferChecked`,
          );
        transfers.push(transfer);
        continue;
      }
      if (ix.data[0] === TOKEN_SYNC_NATIVE && ix.data.length === 1 && isWrappedSolPayment(policy)) continue;
      return reject(
        "invalid_exact_svm_payload_unknown_optional_instruction",
        `Instruction ${index} is a token instruction other than TransferChecked (discriminator ${ix.data[0]})`,
      );
    }
    if (program === SYSTEM_PROGRAM_ADDRESS) {
      const transfer = parseSystemTransfer(ix);
      if (!transfer)
        return reject(
          "invalid_exact_svm_payload_unknown_optional_instruction",
          `Instruction ${index} is a System instruction other than Transfer`,
        );
      if (policy.destination.kind === "sol") transfers.push(transfer);
      else if (!isWrappedSolPayment(policy)) {
        return reject(
          "invalid_exact_svm_payload_unknown_optional_instruction",
          `Instruction ${index} moves SOL in a payment of ${policy.destination.mint}`,
        );
      }
      continue; // a wSOL wrap funds the buyer's own wSOL account; checked below
    }
    if (program === ASSOCIATED_TOKEN_PROGRAM_ADDRESS) {
      const kind = ix.data.length === 0 ? ATA_CREATE : ix.data[0];
      if ((kind === ATA_CREATE || kind === ATA_CREATE_IDEMPOTENT) && ix.data.length <= 1 && isWrappedSolPayment(policy))
        continue;
      return reject(
        "invalid_exact_svm_payload_unknown_optional_instruction",
        `Instruction ${index} is an associated-token instruction that only a wSOL wrap may use`,
      );
    }
    return reject(
      "invalid_exact_svm_payload_unknown_optional_instruction",
      `Instruction ${index} calls program ${program}, which is not allowed in an exact payment`,
    );
  }

  const memo = checkMemo(memos, policy.memo);
  if (memo) return { ok: false, rejection: memo };

  if (transfers.length === 0) {
    return reject(
      "invalid_exact_svm_payload_no_transfer_instruction",
      policy.destination.kind === "sol"
        ? "The transaction has no System transfer to the vault SOL storage"
        : "The transaction has no TransferChecked instruction",
    );
  }
  if (transfers.length > 1) {
    return reject(
      "invalid_exact_svm_payload_multiple_transfers",
      `The transaction has ${transfers.length} transfers; an exact payment has exactly one`,
    );
  }
  const transfer = transfers[0]!;
  if (policy.destination.kind === "spl" && transfer.mint !== policy.destination.mint) {
    return reject(
      "invalid_exact_svm_payload_mint_mismatch",
      `The transfer moves mint ${transfer.mint}, but the requirement asks for ${policy.destination.mint}`,
    );
  }
  if (policy.destination.kind === "sol" && transfer.destination !== policy.destination.solStorage) {
    return reject(
      "invalid_exact_svm_payload_recipient_mismatch",
      `The SOL transfer goes to ${transfer.destination}, not to the vault SOL storage ${policy.destination.solStorage}`,
    );
  }
  if (transfer.amount !== policy.amount) {
    return reject(
      "invalid_exact_svm_payload_amount_mismatch",
      `The transfer amount is ${transfer.amount}, but the requirement asks for exactly ${policy.amount}`,
    );
  }
  // A transfer into its own source moves nothing, yet would read as paid (e.g. a delegate of the seller's account).
  if (transfer.source === transfer.destination) {
    return reject(
      "invalid_exact_svm_payload_transfer_to_source",
      `The transfer's source ${transfer.source} is its destination: nothing would be paid`,
    );
  }
  // The fee payer as authority never gets here: it may not appear in any instruction (above), and index 0 fails below.
  const authorityIndex = tx.staticAccounts.indexOf(transfer.authority);
  if (authorityIndex < 1 || authorityIndex >= tx.numRequiredSignatures) {
    return reject(
      "invalid_exact_svm_payload_missing_signer",
      "The transfer authority is not a signer of the transaction",
    );
  }
  if (isWrappedSolPayment(policy)) {
    const wrap = checkWrappedSolInstructions(tx.instructions, transfer);
    if (wrap) return { ok: false, rejection: wrap };
  }
  return { ok: true, transfer };
}

/**
 * The spec's Memo rule: with `extra.memo` the payment carries exactly one Memo whose data is that string's UTF-8
 * bytes (the seller's reference); without it, a Memo is optional and free (the client's uniqueness nonce).
 */
function checkMemo(memos: DecodedInstruction[], expected: string | undefined): Rejection | null {
  if (expected === undefined) return null;
  if (memos.length !== 1) {
    return {
      reason: "invalid_exact_svm_payload_memo_count",
      message:
        `extra.memo is set, so the payment needs exactly one Memo instruction carrying it; ` + `found ${memos.length}`,
    };
  }
  const actual = memos[0]!.data;
  const wanted = new TextEncoder().encode(expected);
  if (actual.length !== wanted.length || actual.some((byte, i) => byte !== wanted[i])) {
    return {
      reason: "invalid_exact_svm_payload_memo_mismatch",
      message: "The Memo instruction's data is not extra.memo",
    };
  }
  return null;
}

function checkComputeBudget(instructions: DecodedInstruction[], policy: ExactPolicy): Rejection | null {
  let limits = 0;
  let prices = 0;
  let pricePerUnit = 0n;
  for (const ix of instructions) {
    if (ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    const parsed = parseComputeBudgetData(ix.data);
    if (parsed.kind === "setComputeUnitLimit") {
      if (++limits > 1)
        return {
          reason: "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction",
          message: "More than one SetComputeUnitLimit instruction",
        };
      if (parsed.units > policy.maxComputeUnitLimit) {
        return {
          reason: "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high",
          message: `Compute unit limit ${parsed.units} exceeds the advertised maximum ${policy.maxComputeUnitLimit}`,
        };
      }
    } else if (parsed.kind === "setComputeUnitPrice") {
      if (++prices > 1)
        return {
          reason: "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction",
          message: "More than one SetComputeUnitPrice instruction",
        };
      if (parsed.microLamports > policy.maxComputeUnitPriceMicroLamports) {
        return {
          reason: "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high",
          message:
            `Compute unit ` +
            `price ${parsed.microLamports} micro-lamports exceeds the ` +
            `maximum ${policy.maxComputeUnitPriceMicroLamports}`,
        };
      }
    } else {
      return {
        reason: "invalid_exact_svm_payload_unsupported_compute_budget_instruction",
        message: `ComputeBudget instruction ${parsed.discriminator} is not accepted`,
      };
    }
    if (parsed.kind === "setComputeUnitPrice") pricePerUnit = parsed.microLamports;
  }
  // Without an explicit limit the runtime grants 200,000 units per instruction; the fee payer pays the price on
  // all of them, so a priced transaction must stay within the advertised limit either way.
  if (limits === 0 && pricePerUnit > 0n) {
    const implied = Math.min(
      MAX_TRANSACTION_COMPUTE_UNITS,
      DEFAULT_UNITS_PER_INSTRUCTION *
        instructions.filter((ix) => ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS).length,
    );
    if (implied > policy.maxComputeUnitLimit) {
      return {
        reason: "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction",
        message:
          `A compute unit price is set without a SetComputeUnitLimit; the implied ` +
          `limit ${implied} exceeds the advertised maximum ${policy.maxComputeUnitLimit}`,
      };
    }
  }
  return null;
}

const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_TRANSACTION_COMPUTE_UNITS = 1_400_000;

/**
 * TransferChecked: `[12] ‖ amount u64 ‖ decimals u8`; accounts source, mint, destination, authority (+ multisig
 * signers).
 */
function parseTransferChecked(ix: DecodedInstruction): PaymentTransfer | null {
  if (ix.data.length !== 10 || ix.accounts.length !== 4) return null;
  const [source, mint, destination, authority] = ix.accounts as [Address, Address, Address, Address];
  return {
    kind: "spl",
    source,
    mint,
    destination,
    authority,
    amount: readU64(ix.data, 1),
    decimals: ix.data[9]!,
    tokenProgram: ix.programAddress,
  };
}

/** System Transfer: `u32 2 ‖ lamports u64`; accounts from (signer), to. */
function parseSystemTransfer(ix: DecodedInstruction): PaymentTransfer | null {
  if (ix.data.length !== 12 || readU32(ix.data, 0) !== SYSTEM_TRANSFER || ix.accounts.length !== 2) return null;
  const [source, destination] = ix.accounts as [Address, Address];
  return { kind: "sol", source, destination, authority: source, amount: readU64(ix.data, 4) };
}

function isWrappedSolPayment(policy: ExactPolicy): boolean {
  return policy.destination.kind === "spl" && policy.destination.mint === WRAPPED_SOL_MINT;
}

/** In a wSOL payment, SOL may only flow from the buyer into the buyer's own wSOL source account. */
function checkWrappedSolInstructions(instructions: DecodedInstruction[], transfer: PaymentTransfer): Rejection | null {
  for (const ix of instructions) {
    if (ix.programAddress === SYSTEM_PROGRAM_ADDRESS) {
      const wrap = parseSystemTransfer(ix);
      if (!wrap || wrap.source !== transfer.authority || wrap.destination !== transfer.source) {
        return {
          reason: "invalid_exact_svm_payload_unknown_optional_instruction",
          message: "A wSOL wrap may only move SOL from the buyer into the buyer's wSOL account",
        };
      }
    }
    if (isTokenProgram(ix.programAddress) && ix.data[0] === TOKEN_SYNC_NATIVE && ix.accounts[0] !== transfer.source) {
      return {
        reason: "invalid_exact_svm_payload_unknown_optional_instruction",
        message: "SyncNative may only target the buyer's wSOL source account",
      };
    }
  }
  return null;
}

function readU32(data: Uint8Array, offset: number): number {
  if (data.length < offset + 4) return -1;
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}

function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}
