import { base58 } from "@scure/base";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";

/**
 * Turns the FEE_PAYER_SECRET_KEY secret into a signer. Accepted forms: base58 of the 64-byte secret key
 * (secret ‖ public, as wallets export it) or the Solana CLI keypair file content (a JSON array of 64 bytes).
 * Errors never contain the key material.
 */
export async function parseFeePayerSecretKey(secret: string): Promise<KeyPairSigner> {
  const bytes = decodeSecretKeyBytes(secret.trim());
  if (bytes === null || bytes.length !== 64) {
    throw new Error("must be a 64-byte ed25519 secret key, as base58 or a JSON byte array");
  }
  try {
    return await createKeyPairSignerFromBytes(bytes);
  } catch {
    throw new Error("is not a valid ed25519 keypair (public half does not match the secret half)");
  }
}

function decodeSecretKeyBytes(secret: string): Uint8Array | null {
  try {
    if (secret.startsWith("[")) {
      const parsed: unknown = JSON.parse(secret);
      if (!Array.isArray(parsed) || !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return null;
      return Uint8Array.from(parsed as number[]);
    }
    return base58.decode(secret);
  } catch {
    return null;
  }
}
