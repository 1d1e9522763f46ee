import { generateKeyPairSigner, getBase58Decoder, getBase64Decoder, type KeyPairSigner, signBytes } from "@solana/kit";
import { chainRpc } from "./chain";

/** A seller wallet with SOL for fees and rent, on the real local chain. */
export async function fundedSeller(): Promise<KeyPairSigner> {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  return seller;
}

/** An ed25519 signature of a challenge message's UTF-8 bytes, as a wallet's signMessage produces it. */
export async function signMessage(
  signer: KeyPairSigner,
  message: string,
  encoding: "base58" | "base64" = "base58",
): Promise<string> {
  const bytes = await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(message));
  return encoding === "base58" ? getBase58Decoder().decode(bytes) : getBase64Decoder().decode(bytes);
}
