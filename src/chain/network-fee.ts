import { parseComputeBudgetData } from "./compute-budget";
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from "./token-programs";
import type { DecodedTransaction } from "./wire-transaction";

/** The cluster's base fee per signature. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** The compute unit limit the cluster assumes per instruction when none is set, and its ceiling. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS_PER_TRANSACTION = 1_400_000n;

/**
 * What the fee payer pays the cluster for this transaction: the base fee per signature plus the priority fee
 * (unit price × unit limit, rounded up). Rent a transaction moves is not a fee and is not counted.
 */
export function networkFeeOf(tx: Pick<DecodedTransaction, "numRequiredSignatures" | "instructions">): bigint {
  let unitLimit: bigint | null = null;
  let microLamportsPerUnit = 0n;
  let otherInstructions = 0n;
  for (const instruction of tx.instructions) {
    if (instruction.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      otherInstructions++;
      continue;
    }
    const parsed = parseComputeBudgetData(instruction.data);
    if (parsed.kind === "setComputeUnitLimit") unitLimit = BigInt(parsed.units);
    else if (parsed.kind === "setComputeUnitPrice") microLamportsPerUnit = parsed.microLamports;
  }
  const units = unitLimit ?? min(otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION, MAX_UNITS_PER_TRANSACTION);
  const priorityFee = (microLamportsPerUnit * min(units, MAX_UNITS_PER_TRANSACTION) + 999_999n) / 1_000_000n;
  return BigInt(tx.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE + priorityFee;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
