import { describe, expect, it } from "vitest";
import { classifyTransactionError } from "../../../src/chain/transaction-errors";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../src/rails/sla-escrow/cluster-defaults";

/**
 * Issue 21: `Custom(1)` is "insufficient funds" only when the SPL Token programs or System returned it. The log
 * lines are the runtime's own wording ("Program <id> failed: custom program error: 0x1"); the innermost failing
 * program is logged first.
 */
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const SYSTEM = "11111111111111111111111111111111";
const ESCROW = SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId;
const custom1 = (index: number) => ({ InstructionError: [index, { Custom: 1 }] });

describe("classifyTransactionError: Custom(1)", () => {
  it("is insufficient funds when the Token program returned it, also inside a CPI of another program", () => {
    const logs = [
      `Program ${ESCROW} invoke [1]`,
      `Program ${TOKEN} invoke [2]`,
      "Program log: Error: insufficient funds",
      `Program ${TOKEN} failed: custom program error: 0x1`,
      `Program ${ESCROW} failed: custom program error: 0x1`,
    ];
    expect(classifyTransactionError(custom1(2), { logs })).toEqual({
      kind: "insufficient_funds",
      instructionIndex: 2,
      program: TOKEN,
    });
  });

  it("is insufficient funds for a top-level System or Token instruction when there are no logs", () => {
    expect(
      classifyTransactionError(custom1(1), {
        instructionPrograms: ["ComputeBudget111111111111111111111111111111", SYSTEM],
      }),
    ).toMatchObject({
      kind: "insufficient_funds",
    });
    expect(classifyTransactionError(custom1(0), { instructionPrograms: [TOKEN] })).toMatchObject({
      kind: "insufficient_funds",
    });
  });

  it(
    "is a plain instruction failure when any other program returned it (the old code called it insufficient " +
      "funds)",
    () => {
      const logs = [`Program ${ESCROW} invoke [1]`, `Program ${ESCROW} failed: custom program error: 0x1`];
      expect(classifyTransactionError(custom1(0), { logs })).toMatchObject({
        kind: "instruction_failed",
        instructionIndex: 0,
      });
      expect(classifyTransactionError(custom1(0), { instructionPrograms: [ESCROW] })).toMatchObject({
        kind: "instruction_failed",
      });
      // Nothing tells which program returned it: not claimed to be a funds problem.
      expect(classifyTransactionError(custom1(0))).toMatchObject({ kind: "instruction_failed" });
    },
  );
});
