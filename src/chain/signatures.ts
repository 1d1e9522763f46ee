import { type Address, getPublicKeyFromAddress, type SignatureBytes, verifySignature } from "@solana/kit";
import { shareOnceFulfilled } from "../platform/cache/share-once-fulfilled";
import type { DecodedTransaction } from "./wire-transaction";

/**
 * Checks that every required signature except the fee payer's (index 0, added by the facilitator at settle)
 * is present and valid over the message bytes (ed25519 through WebCrypto).
 */
export function verifyNonFeePayerSignatures(tx: DecodedTransaction): Promise<SignatureCheck> {
  return verifySignaturesFrom(tx, 1);
}

/** Checks every required signature, the fee payer's included (a transaction its own payer already signed). */
export function verifyAllSignatures(tx: DecodedTransaction): Promise<SignatureCheck> {
  return verifySignaturesFrom(tx, 0);
}

export type SignatureCheck = { ok: true } | { ok: false; missing: boolean; signer: string };

async function verifySignaturesFrom(tx: DecodedTransaction, first: number): Promise<SignatureCheck> {
  const checks = tx.signatures.slice(first).map(async (signature, i) => {
    const signer = tx.staticAccounts[i + first]!;
    if (signature === null) return { ok: false as const, missing: true, signer };
    const key = await publicKeyOf(signer);
    const valid = await verifySignature(key, signature as SignatureBytes, tx.messageBytes);
    return valid ? null : { ok: false as const, missing: false, signer };
  });
  for (const result of await Promise.all(checks)) if (result) return result;
  return { ok: true };
}

/**
 * Imported WebCrypto keys of recent signers (repeat buyers skip the import); bounded, safe to lose, settled ones only.
 */
const MAX_CACHED_KEYS = 10_000;
const publicKeys = new Map<string, Promise<CryptoKey>>();

function publicKeyOf(signer: Address): Promise<CryptoKey> {
  return (
    publicKeys.get(signer) ??
    shareOnceFulfilled(getPublicKeyFromAddress(signer), (key) => {
      if (publicKeys.size >= MAX_CACHED_KEYS) publicKeys.clear();
      publicKeys.set(signer, key);
    })
  );
}
