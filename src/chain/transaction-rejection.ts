import { blockhashExpired, type PaymentRejection, rejection } from "../x402/payment-verdict";
import { SYSTEM_PROGRAM_ADDRESS } from "./token-programs";
import { classifyTransactionError } from "./transaction-errors";

/**
 * What leaves the payer's account, as much as the wording of a refusal needs: native SOL or a token; or a token while
 * the facilitator's fee payer fronts the rent of the accounts the payment creates (upto's Open), so SOL that runs
 * short is the fee payer's, never the buyer's.
 */
export type PaymentFunds = "sol" | "token" | "token_rent_fronted";

/**
 * Turns a simulation, preflight or on-chain error into the verify/settle refusal a client can act on (any rail).
 * `funds` words a buyer's shortfall; `instructionPrograms` (program of each top-level instruction) tells which
 * program returned an instruction error when there are no logs.
 */
export function rejectionForTransactionError(
  err: unknown,
  logs: readonly string[],
  funds: PaymentFunds,
  instructionPrograms?: readonly string[],
): PaymentRejection {
  const classified = classifyTransactionError(err, { logs, instructionPrograms });
  switch (classified.kind) {
    case "blockhash_expired":
      return blockhashExpired("refused");
    case "fee_payer_insufficient":
      return rejection(
        "facilitator_insufficient_funds",
        "The facilitator's fee payer cannot pay network fees right now; try again later",
        { code: "SERVICE_UNAVAILABLE" },
      );
    case "insufficient_funds":
      if (funds === "token_rent_fronted" && classified.program === SYSTEM_PROGRAM_ADDRESS) {
        return rejection(
          "facilitator_insufficient_funds",
          "The facilitator's fee payer cannot front the rent of this payment's accounts right now; nothing was " +
            "charged, try again later",
          {
            code: "SERVICE_UNAVAILABLE",
          },
        );
      }
      return rejection(
        "insufficient_funds",
        `The buyer does not hold enough ${funds === "sol" ? "SOL" : "tokens"} for this payment`,
      );
    case "already_processed":
      return rejection("duplicate_settlement", "This transaction has already been processed");
    default: {
      const detail =
        classified.kind === "instruction_failed"
          ? `instruction ${classified.instructionIndex} failed: ${classified.detail}`
          : classified.detail;
      const lastLog = logs.filter((line) => /failed|error/i.test(line)).at(-1);
      return rejection(
        "transaction_simulation_failed",
        `Simulation failed: ${detail}${lastLog ? ` (${lastLog.slice(0, 200)})` : ""}`,
      );
    }
  }
}

/**
 * A transaction that executed and failed (its network fee was paid): the cause its error names (the buyer's
 * shortfall, the fee payer's), else `settlement_failed` — a simulation's reason would tell the client nothing ran.
 */
export function rejectionForOnChainFailure(
  err: unknown,
  funds: PaymentFunds,
  instructionPrograms?: readonly string[],
): PaymentRejection {
  const refused = rejectionForTransactionError(err, [], funds, instructionPrograms);
  if (refused.reason !== "transaction_simulation_failed") return refused;
  const classified = classifyTransactionError(err, {
    logs: [],
    ...(instructionPrograms ? { instructionPrograms } : {}),
  });
  const detail =
    classified.kind === "instruction_failed"
      ? `instruction ${classified.instructionIndex} failed: ${classified.detail}`
      : "detail" in classified
        ? classified.detail
        : classified.kind;
  return rejection(
    "settlement_failed",
    `The transaction executed and failed on chain (${detail}); its network fee was paid, nothing was transferred`,
  );
}

/** The program of each top-level instruction (to tell which program returned an instruction error). */
export function programsOf(tx: { instructions: readonly { programAddress: string }[] }): string[] {
  return tx.instructions.map((instruction) => instruction.programAddress);
}
