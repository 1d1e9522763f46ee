import { createHash, createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import { base58 } from "@scure/base";

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface LocalKeypair {
  /** 64 bytes: seed ‖ public key, the form wallets and FEE_PAYER_SECRET_KEY use. */
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  address: string;
  secretKeyBase58: string;
}

export function keypairFromSeed(seed: Uint8Array): LocalKeypair {
  if (seed.length !== 32) throw new Error("seed must be 32 bytes");
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  const publicKey = new Uint8Array(Buffer.from(jwk.x as string, "base64url"));
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return { secretKey, publicKey, address: base58.encode(publicKey), secretKeyBase58: base58.encode(secretKey) };
}

/** A fresh random keypair (local fee payer on first start). */
export function randomKeypair(): LocalKeypair {
  return keypairFromSeed(new Uint8Array(randomBytes(32)));
}

/** A keypair derived from a label: deterministic, for tests and local fixtures only. */
export function labelledKeypair(label: string): LocalKeypair {
  return keypairFromSeed(new Uint8Array(createHash("sha256").update(label).digest()));
}
