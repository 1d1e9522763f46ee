import { getSettlementState, type SettlementRow } from "../store/settlements";
import { type PaymentRejection, type RejectionReason, rejection } from "../x402/payment-verdict";
import type { SettleLedger } from "./settle-ports";

/**
 * Where a refused payment's settlement is looked up: D1 on /verify; on /settle the ledger the engine runs on (the
 * ledger object's copy first, which holds a failure before D1's mirror does).
 */
export type SettlementLookup = D1Database | Pick<SettleLedger, "get">;

type RecordedSettlement = Pick<SettlementRow, "state" | "signature" | "errorReason" | "errorMessage">;

/**
 * /verify's "already settled?" question, asked of the ledger only when the chain has refused the payment.
 *
 * A payment that landed cannot simulate cleanly again: while its blockhash lives the cluster's status cache (keyed by
 * the message hash, so any signature set of the same message) answers AlreadyProcessed, and afterwards the blockhash is
 * gone (BlockhashNotFound). A payment the simulation accepts has therefore not landed, and a fresh payment — the hot
 * path — costs no D1 read. When the chain does refuse, the ledger turns the refusal into `duplicate_settlement` naming
 * the settlement, or into the failure it recorded for a payment that executed and failed on chain. A payment still in
 * flight may pass /verify; /settle's ledger claim is what makes delivery exactly-once, and the official seller
 * middleware settles before it sends the resource.
 */
export async function explainChainRefusal(
  ledger: SettlementLookup | undefined,
  messageHash: string,
  refusal: PaymentRejection,
): Promise<PaymentRejection & { signature?: string }> {
  if (!ledger) return refusal;
  const row: RecordedSettlement | undefined =
    "prepare" in ledger ? await getSettlementState(ledger, messageHash) : await ledger.get(messageHash);
  if (!row) return refusal;
  if (row.state === "failed") return recordedFailure(row, refusal.payer) ?? refusal;
  return rejection(
    "duplicate_settlement",
    row.state === "confirmed"
      ? `This payment was already settled (transaction ${row.signature}); it cannot be used again`
      : "This payment is already being settled; it cannot be used again",
    { payer: refusal.payer },
  );
}

/**
 * A failure the ledger recorded for a payment that executed on chain (its fee was paid and its transaction is
 * public), answered again the same way with its signature. Undefined for one whose blockhash expired unseen: it
 * never reached the cluster, so it has no signature to name.
 */
export function recordedFailure(
  row: RecordedSettlement,
  payer: string | undefined,
): (PaymentRejection & { signature: string }) | undefined {
  if (row.errorReason === null || row.errorReason === "blockhash_expired") return undefined;
  return {
    // The row's reason was written by the settle engine's recordFailure from a RejectionReason.
    ...rejection(row.errorReason as RejectionReason, row.errorMessage ?? "This payment failed on chain", { payer }),
    signature: row.signature,
  };
}
