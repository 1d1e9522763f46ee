/**
 * Reading Solana TransactionError values (as JSON-RPC returns them) into x402 reasons. Shared by
 * simulation (verify), preflight (settle) and confirmation.
 */
export type TransactionErrorKind =
  | { kind: "blockhash_expired" }
  | { kind: "already_processed" }
  | { kind: "fee_payer_insufficient" }
  /** `program`: the funds program that ran short (System: SOL, the token programs: tokens). */
  | { kind: "insufficient_funds"; instructionIndex: number; program: string }
  | { kind: "instruction_failed"; instructionIndex: number; detail: string }
  | { kind: "other"; detail: string };

/**
 * Custom error 1 means "not enough funds" only from the programs that move funds: the SPL Token programs
 * (TokenError::InsufficientFunds) and System (SystemError::ResultWithNegativeLamports). Any other program numbers
 * its own errors, and its 1 means something else.
 */
const CUSTOM_INSUFFICIENT_FUNDS = 1;
const FUNDS_PROGRAMS: ReadonlySet<string> = new Set([
  "11111111111111111111111111111111",
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
]);
const FAILED_WITH_CUSTOM_1 = /^Program (\w+) failed: custom program error: 0x1$/;

/** What tells which program returned an InstructionError: its logs, else the top-level instruction's program. */
export interface TransactionErrorContext {
  logs?: readonly string[];
  /** Program address of each top-level instruction, by index. */
  instructionPrograms?: readonly string[];
}

/**
 * The program that returned `Custom(1)`: the first "failed: custom program error: 0x1" log line names the innermost
 * program that failed (a CPI's failure is logged before its caller's); without logs, the top-level instruction's.
 */
function programThatReturnedCustom1(instructionIndex: number, context: TransactionErrorContext): string | undefined {
  for (const line of context.logs ?? []) {
    const match = FAILED_WITH_CUSTOM_1.exec(line);
    if (match) return match[1];
  }
  return context.instructionPrograms?.[instructionIndex];
}

export function classifyTransactionError(err: unknown, context: TransactionErrorContext = {}): TransactionErrorKind {
  if (err === "BlockhashNotFound") return { kind: "blockhash_expired" };
  if (err === "AlreadyProcessed") return { kind: "already_processed" };
  if (err === "InsufficientFundsForFee" || err === "InsufficientFundsForRent")
    return { kind: "fee_payer_insufficient" };
  if (err && typeof err === "object" && "InstructionError" in err) {
    const [index, inner] = (err as { InstructionError: [number | bigint, unknown] }).InstructionError;
    const instructionIndex = Number(index);
    if (
      inner &&
      typeof inner === "object" &&
      "Custom" in inner &&
      Number((inner as { Custom: number | bigint }).Custom) === CUSTOM_INSUFFICIENT_FUNDS
    ) {
      const program = programThatReturnedCustom1(instructionIndex, context);
      if (program !== undefined && FUNDS_PROGRAMS.has(program))
        return { kind: "insufficient_funds", instructionIndex, program };
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
