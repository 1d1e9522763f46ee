import { base58, base64 } from "@scure/base";
import { type Address, getPublicKeyFromAddress, type SignatureBytes, verifySignature } from "@solana/kit";

const ED25519_SIGNATURE_BYTES = 64;

/**
 * The 64-byte readings of a signature string: base58 (the documented form) and base64 (also accepted).
 * A string can be valid in both alphabets, so every 64-byte reading is a candidate; each is checked
 * against the same wallet and message, so accepting either adds no forgery path.
 */
export function signatureCandidates(text: string): Uint8Array[] {
  const candidates: Uint8Array[] = [];
  for (const decode of [base58.decode, base64.decode]) {
    try {
      const bytes = decode(text.trim());
      if (bytes.length === ED25519_SIGNATURE_BYTES) candidates.push(bytes);
    } catch {
      // not this encoding
    }
  }
  return candidates;
}

/** Ed25519 over the message's UTF-8 bytes, verified with WebCrypto against the wallet's public key. */
export async function isWalletSignature(wallet: Address, message: string, signature: string): Promise<boolean> {
  const candidates = signatureCandidates(signature);
  if (candidates.length === 0) return false;
  let key: CryptoKey;
  try {
    key = await getPublicKeyFromAddress(wallet);
  } catch {
    return false; // not importable as an ed25519 public key (e.g. an off-curve PDA): it cannot have signed
  }
  const bytes = new TextEncoder().encode(message);
  for (const candidate of candidates) {
    if (await verifySignature(key, candidate as SignatureBytes, bytes)) return true;
  }
  return false;
}
