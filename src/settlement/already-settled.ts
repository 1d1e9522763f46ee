import { getSettlementState } from "../store/settlements";
import { type PaymentRejection, rejection } from "../x402/payment-verdict";

/**
 * /verify's "already settled?" question, asked of the ledger only when the chain has refused the payment.
 *
 * A payment that landed cannot simulate cleanly again: while its blockhash lives the cluster's status cache (keyed by
 * the message hash, so any signature set of the same message) answers AlreadyProcessed, and afterwards the blockhash is
 * gone (BlockhashNotFound). A payment the simulation accepts has therefore not landed, and a fresh payment — the hot
 * path — costs no D1 read. When the chain does refuse, the ledger turns the refusal into `duplicate_settlement` naming
 * the settlement. A payment still in flight may pass /verify; /settle's ledger claim is what makes delivery
 * exactly-once, and the official seller middleware settles before it sends the resource.
 */
export async function explainChainRefusal(
  db: D1Database | undefined,
  messageHash: string,
  refusal: PaymentRejection,
): Promise<PaymentRejection> {
  if (!db) return refusal;
  const row = await getSettlementState(db, messageHash);
  if (!row || row.state === "failed") return refusal;
  return rejection(
    "duplicate_settlement",
    row.state === "confirmed"
      ? `This payment was already settled (transaction ${row.signature}); it cannot be used again`
      : "This payment is already being settled; it cannot be used again",
    { payer: refusal.payer },
  );
}
