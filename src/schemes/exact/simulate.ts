import type { Config } from "../../config/load-config";
import { rpcCall } from "../../solana/rpc";
import { classifyTransactionError } from "../../solana/transaction-errors";
import type { DecodedTransaction } from "../../solana/wire-transaction";
import { rejection, type PaymentRejection } from "../../x402/payment-verdict";
import type { PaymentTransfer } from "./verify-rules";

/**
 * Simulates the buyer-signed payment at confirmed commitment. The fee payer has not signed yet, so signature
 * verification is off; the blockhash is not replaced, so an expired one is reported as such. The buyer's own base64
 * goes out as it came in, unchanged.
 */
export async function simulatePayment(config: Config, tx: DecodedTransaction, transfer: PaymentTransfer): Promise<{ ok: true } | PaymentRejection> {
  const result = await rpcCall<{ value: { err: unknown; logs?: string[] | null } }>(config, "simulateTransaction", [
    tx.wireBase64,
    { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed" },
  ]);
  if (result.value.err === null) return { ok: true };
  return rejectionForTransactionError(result.value.err, result.value.logs ?? [], transfer, programsOf(tx));
}

/** The program of each top-level instruction (to tell which program returned an instruction error). */
export function programsOf(tx: Pick<DecodedTransaction, "instructions">): string[] {
  return tx.instructions.map((instruction) => instruction.programAddress);
}

/** Turns a simulation or preflight error into the verify/settle rejection a client can act on. */
export function rejectionForTransactionError(
  err: unknown,
  logs: readonly string[],
  transfer: PaymentTransfer | null,
  instructionPrograms?: readonly string[],
): PaymentRejection {
  const classified = classifyTransactionError(err, { logs, instructionPrograms });
  switch (classified.kind) {
    case "blockhash_expired":
      return rejection("blockhash_expired", "The transaction's blockhash has expired; retry build: rebuild and sign the payment again", { code: "BLOCKHASH_EXPIRED" });
    case "fee_payer_insufficient":
      return rejection("facilitator_insufficient_funds", "The facilitator's fee payer cannot pay network fees right now; try again later", { code: "SERVICE_UNAVAILABLE" });
    case "insufficient_funds":
      return rejection("insufficient_funds", `The buyer does not hold enough ${transfer?.kind === "sol" ? "SOL" : "tokens"} for this payment`);
    case "already_processed":
      return rejection("duplicate_settlement", "This transaction has already been processed");
    default: {
      const detail = classified.kind === "instruction_failed" ? `instruction ${classified.instructionIndex} failed: ${classified.detail}` : classified.detail;
      const lastLog = logs.filter((line) => /failed|error/i.test(line)).at(-1);
      return rejection("transaction_simulation_failed", `Simulation failed: ${detail}${lastLog ? ` (${lastLog.slice(0, 200)})` : ""}`);
    }
  }
}
