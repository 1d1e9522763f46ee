import type { Config } from "../platform/config/load-config";
import type { PaymentRejection } from "../x402/payment-verdict";
import { rpcCall } from "./rpc";
import { type PaymentFunds, programsOf, rejectionForTransactionError } from "./transaction-rejection";
import type { DecodedTransaction } from "./wire-transaction";

/**
 * Simulates a buyer-signed payment of any rail at confirmed commitment. The fee payer has not signed yet, so
 * signature verification is off; the blockhash is not replaced, so an expired one is reported as such. The buyer's
 * own base64 goes out as it came in, unchanged.
 */
export async function simulateSignedPayment(
  config: Config,
  tx: DecodedTransaction,
  funds: PaymentFunds,
): Promise<{ ok: true } | PaymentRejection> {
  const result = await rpcCall<{ value: { err: unknown; logs?: string[] | null } }>(config, "simulateTransaction", [
    tx.wireBase64,
    { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed" },
  ]);
  if (result.value.err === null) return { ok: true };
  return rejectionForTransactionError(result.value.err, result.value.logs ?? [], funds, programsOf(tx));
}

/**
 * The same simulation with the inner instructions the node parsed (`innerInstructions: true`): for a payment whose
 * transfer happens inside another program, what the payment does is read from them. One RPC call.
 */
export async function simulateWithInnerInstructions(
  config: Config,
  tx: DecodedTransaction,
  funds: PaymentFunds,
): Promise<{ ok: true; innerInstructions: unknown } | PaymentRejection> {
  const result = await rpcCall<{ value: { err: unknown; logs?: string[] | null; innerInstructions?: unknown } }>(
    config,
    "simulateTransaction",
    [
      tx.wireBase64,
      {
        encoding: "base64",
        sigVerify: false,
        replaceRecentBlockhash: false,
        commitment: "confirmed",
        innerInstructions: true,
      },
    ],
  );
  if (result.value.err === null) return { ok: true, innerInstructions: result.value.innerInstructions ?? null };
  return rejectionForTransactionError(result.value.err, result.value.logs ?? [], funds, programsOf(tx));
}
