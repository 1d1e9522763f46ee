import {
  type Address,
  appendTransactionMessageInstructions,
  type Base64EncodedWireTransaction,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";

/**
 * An unsigned v0 transaction (no lookup tables) for a client to sign, as base64 wire bytes, with its signers in
 * account order (fee payer first) so a builder can tell each party its signature index. Shared by every builder.
 */
export function compileUnsignedTransaction(input: {
  feePayer: Address;
  blockhash: { blockhash: Blockhash; lastValidBlockHeight: bigint };
  instructions: readonly Instruction[];
}): { transaction: Base64EncodedWireTransaction; signerPubkeys: Address[] } {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(input.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(input.blockhash, m),
    (m) => appendTransactionMessageInstructions(input.instructions, m),
  );
  const compiled = compileTransaction(message);
  return {
    transaction: getBase64EncodedWireTransaction(compiled),
    signerPubkeys: Object.keys(compiled.signatures) as Address[],
  };
}

/** The fields every builder's response shares (docs/wire-notes.md "Builders"). */
export interface UnsignedTransactionFields {
  /** pr402's BuildPaymentTxResponse requires it on every build response (public/openapi.json). */
  x402Version: 2;
  /** Unsigned base64 wire transaction. */
  transaction: string;
  payerSignatureIndex: number;
  recentBlockhash: string;
  recentBlockhashExpiresAt: number;
  feePayer: Address;
  payer: Address;
  signerPubkeys: Address[];
}
