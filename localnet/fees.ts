/**
 * The transaction fee as the runtime charges it: 5,000 lamports per signature (transaction and
 * precompile signatures) plus the prioritisation fee ceil(cuPrice × cuLimit / 10^6). litesvm charges
 * the same amounts; we need the number for getFeeForMessage and for `meta.fee` of successful
 * transactions (whose fee payer balance also moves for other reasons).
 */
import type { ParsedMessage } from "./wire-transaction";

export const LAMPORTS_PER_SIGNATURE = 5_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
/** Default budget of an instruction of a builtin program (reserve_minimal_cus_for_builtin_instructions). */
const DEFAULT_BUILTIN_INSTRUCTION_COMPUTE_UNITS = 3_000n;
const DEFAULT_INSTRUCTION_COMPUTE_UNITS = 200_000n;

const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const PRECOMPILE_PROGRAMS = new Set([
  "Ed25519SigVerify111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
]);
const BUILTIN_PROGRAMS = new Set([
  "11111111111111111111111111111111",
  COMPUTE_BUDGET_PROGRAM,
  "Vote111111111111111111111111111111111111111",
  "Stake11111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
  "ZkE1Gama1Proof11111111111111111111111111111",
  ...PRECOMPILE_PROGRAMS,
]);

export interface ComputeBudgetRequest {
  unitLimit: bigint;
  unitPriceMicroLamports: bigint;
}

/** Reads SetComputeUnitLimit / SetComputeUnitPrice, falling back to the runtime's defaults. */
export function readComputeBudget(message: ParsedMessage): ComputeBudgetRequest {
  let explicitLimit: bigint | undefined;
  let unitPriceMicroLamports = 0n;
  let defaultLimit = 0n;
  for (const instruction of message.instructions) {
    const programId = message.staticAccountKeys[instruction.programIdIndex];
    if (programId === undefined) continue;
    defaultLimit += BUILTIN_PROGRAMS.has(programId)
      ? DEFAULT_BUILTIN_INSTRUCTION_COMPUTE_UNITS
      : DEFAULT_INSTRUCTION_COMPUTE_UNITS;
    if (programId !== COMPUTE_BUDGET_PROGRAM) continue;
    const data = instruction.data;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (data[0] === 2 && data.length === 5) explicitLimit = BigInt(view.getUint32(1, true));
    if (data[0] === 3 && data.length === 9) unitPriceMicroLamports = view.getBigUint64(1, true);
  }
  const limit = explicitLimit ?? defaultLimit;
  return {
    unitLimit: limit < MAX_COMPUTE_UNIT_LIMIT ? limit : MAX_COMPUTE_UNIT_LIMIT,
    unitPriceMicroLamports,
  };
}

export function computeTransactionFee(message: ParsedMessage): bigint {
  let signatureCount = BigInt(message.header.numRequiredSignatures);
  for (const instruction of message.instructions) {
    const programId = message.staticAccountKeys[instruction.programIdIndex];
    // Precompile instructions start with their signature count.
    if (programId !== undefined && PRECOMPILE_PROGRAMS.has(programId))
      signatureCount += BigInt(instruction.data[0] ?? 0);
  }
  const { unitLimit, unitPriceMicroLamports } = readComputeBudget(message);
  const priorityFee =
    (unitPriceMicroLamports * unitLimit + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return signatureCount * LAMPORTS_PER_SIGNATURE + priorityFee;
}
