/**
 * Reading Solana TransactionError values (as JSON-RPC returns them) into x402 reasons. Shared by
 * simulation (verify), preflight (settle) and confirmation.
 */
export type TransactionErrorKind =
  | { kind: "blockhash_expired" }
  | { kind: "already_processed" }
  | { kind: "fee_payer_insufficient" }
  | { kind: "insufficient_funds"; instructionIndex: number }
  | { kind: "instruction_failed"; instructionIndex: number; detail: string }
  | { kind: "other"; detail: string };

/** Token program custom error 1 and System error 1 both mean "not enough funds" for a transfer. */
const CUSTOM_INSUFFICIENT_FUNDS = 1;

export function classifyTransactionError(err: unknown): TransactionErrorKind {
  if (err === "BlockhashNotFound") return { kind: "blockhash_expired" };
  if (err === "AlreadyProcessed") return { kind: "already_processed" };
  if (err === "InsufficientFundsForFee" || err === "InsufficientFundsForRent") return { kind: "fee_payer_insufficient" };
  if (err && typeof err === "object" && "InstructionError" in err) {
    const [index, inner] = (err as { InstructionError: [number | bigint, unknown] }).InstructionError;
    const instructionIndex = Number(index);
    if (inner && typeof inner === "object" && "Custom" in inner && Number((inner as { Custom: number | bigint }).Custom) === CUSTOM_INSUFFICIENT_FUNDS) {
      return { kind: "insufficient_funds", instructionIndex };
    }
    return { kind: "instruction_failed", instructionIndex, detail: describe(inner) };
  }
  return { kind: "other", detail: describe(err) };
}

export function describe(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  } catch {
    return String(value);
  }
}
