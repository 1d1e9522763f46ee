import { signBytes } from "@solana/kit";
import { encodeBase58 } from "./base58";
import type { Config } from "../config/load-config";
import type { DecodedTransaction } from "./wire-transaction";

/**
 * Adds the facilitator's fee-payer signature (slot 0) to a verified transaction. Ed25519 is deterministic,
 * so every isolate signing the same message produces the same signature — the transaction id is known
 * before sending, and re-sending after a crash can only ever submit the very same transaction.
 */
export async function signAsFeePayer(config: Config, tx: DecodedTransaction): Promise<{ wireBytes: Uint8Array; signature: string }> {
  const signature = new Uint8Array(await signBytes(config.feePayer.keyPair.privateKey, tx.messageBytes));
  const wireBytes = new Uint8Array(tx.wireBytes);
  // Wire layout: compact-u16 signature count (one byte below 128 signers), then 64-byte signatures.
  if (wireBytes[0] !== tx.numRequiredSignatures || tx.numRequiredSignatures >= 0x80) {
    throw new Error("unexpected signature section layout");
  }
  wireBytes.set(signature, 1);
  return { wireBytes, signature: encodeBase58(signature) };
}
