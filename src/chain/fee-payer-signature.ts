import { signBytes } from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { encodeBase58 } from "./base58";
import { compactU16Size, readCompactU16 } from "./compact-u16";
import { networkFeeOf } from "./network-fee";
import type { DecodedTransaction } from "./wire-transaction";

/**
 * Adds the facilitator's fee-payer signature (slot 0) to a verified transaction. Ed25519 is deterministic,
 * so every isolate signing the same message produces the same signature — the transaction id is known
 * before sending, and re-sending after a crash can only ever submit the very same transaction.
 */
export async function signAsFeePayer(
  config: Config,
  tx: DecodedTransaction,
): Promise<{ wireBytes: Uint8Array; signature: string; feePayerFeeLamports: bigint }> {
  const signature = new Uint8Array(await signBytes(config.feePayer.keyPair.privateKey, tx.messageBytes));
  const wireBytes = new Uint8Array(tx.wireBytes);
  // Wire layout: the compact-u16 signature count, then 64-byte signatures; the fee payer's comes first.
  const signatureCount = readCompactU16(wireBytes, 0, "the signature count");
  if (signatureCount !== tx.numRequiredSignatures) throw new Error("unexpected signature section layout");
  wireBytes.set(signature, compactU16Size(signatureCount));
  return { wireBytes, signature: encodeBase58(signature), feePayerFeeLamports: networkFeeOf(tx) };
}
