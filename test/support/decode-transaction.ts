import {
  type AccountMeta,
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
} from "@solana/kit";

/**
 * A builder endpoint's base64 wire transaction decoded back to its message, for asserting field by field: the signers
 * and their signatures (null until signed) in slot order, the fee payer, each instruction with its accounts' roles and
 * its data. Runs in Node and in workerd.
 */
export function decodeBuiltTransaction(base64: string) {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes));
  return {
    signers: Object.keys(transaction.signatures),
    signatures: Object.values(transaction.signatures),
    feePayer: message.feePayer.address,
    instructions: (message.instructions as readonly Instruction[]).map((ix) => ({
      programAddress: ix.programAddress,
      accounts: (ix.accounts ?? []).map((a) => ({ address: a.address, role: (a as AccountMeta).role })),
      data: Uint8Array.from(ix.data ?? []),
    })),
  };
}
