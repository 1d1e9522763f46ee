/**
 * Deterministic keypairs of the local chain (faucet / mint authority, program operator). They are
 * derived from a public label, so ANYONE can recompute them: they exist only so that the local chain
 * needs no key files, and must never hold value or be used outside localnet.
 *
 * Signing is synchronous (node:crypto) so the chain can build and land its own transactions
 * (airdrops) inside one synchronous step, like every other state change.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { toBase58 } from "./wire-transaction";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const LABEL_DOMAIN = "x402-solana-facilitator/localnet-only-key/";

export interface LocalKeypair {
  label: string;
  address: string;
  /** 64 bytes: seed ‖ public key (the Solana CLI / kit `createKeyPairSignerFromBytes` format). */
  secretKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

const cache = new Map<string, LocalKeypair>();

export function localKeypair(label: string): LocalKeypair {
  const cached = cache.get(label);
  if (cached) return cached;
  const seed = createHash("sha256")
    .update(LABEL_DOMAIN + label)
    .digest();
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const publicKeyRaw = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(-32);
  const keypair: LocalKeypair = {
    label,
    address: toBase58(publicKeyRaw),
    secretKey: Uint8Array.from([...seed, ...publicKeyRaw]),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
  cache.set(label, keypair);
  return keypair;
}

/** Pays for airdrops and ATA creation; mint authority of every mint the chain seeds. */
export const FAUCET_KEY_LABEL = "faucet";
/** Authority and fee destination of the seeded program configs. */
export const OPERATOR_KEY_LABEL = "operator";
