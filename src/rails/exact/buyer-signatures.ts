import type { Address } from "@solana/kit";
import { verifyNonFeePayerSignatures } from "../../chain/signatures";
import type { DecodedTransaction } from "../../chain/wire-transaction";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";

/**
 * The refusal of an `exact` payment whose signatures other than the fee payer's (added at settle) are missing or do
 * not verify, in the official facilitator's reasons; null when every one verifies. `payer` is whom the refusal names.
 */
export async function buyerSignatureRefusal(tx: DecodedTransaction, payer: Address): Promise<PaymentRejection | null> {
  const signatures = await verifyNonFeePayerSignatures(tx);
  if (signatures.ok) return null;
  return signatures.missing
    ? rejection(
        "invalid_exact_svm_payload_missing_signature",
        `The transaction is missing the signature of ${signatures.signer}`,
        { payer },
      )
    : rejection(
        "invalid_exact_svm_payload_signature_invalid",
        `The signature of ${signatures.signer} does not verify`,
        {
          payer,
        },
      );
}
