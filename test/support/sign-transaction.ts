import {
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";

/**
 * Adds the signers' signatures to a base64 wire transaction (the other slots stay as they are) and returns it as
 * base64 again: what a wallet does with a transaction a builder endpoint returned. Runs in Node and in workerd.
 */
export async function signWireTransaction(base64: string, signers: KeyPairSigner[]): Promise<string> {
  const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const signed = await partiallySignTransaction(
    signers.map((signer) => signer.keyPair),
    unsigned,
  );
  return getBase64EncodedWireTransaction(signed);
}
