import {
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
} from "@solana/kit";
import { isCanonicalBase64, toBase64 } from "./bytes";

/** One instruction of a decoded message with its accounts resolved to addresses. */
export interface DecodedInstruction {
  programAddress: Address;
  accounts: Address[];
  data: Uint8Array;
}

/** What verification needs to know about a wire transaction, computed once. */
export interface DecodedTransaction {
  wireBytes: Uint8Array;
  /** The same bytes as canonical base64: the caller's own text when it already is (no re-encoding on the hot path). */
  wireBase64: string;
  messageBytes: Uint8Array;
  version: "legacy" | 0;
  /** Signatures in signer order (account index order); null = slot left empty (all zeroes). */
  signatures: (Uint8Array | null)[];
  staticAccounts: Address[];
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
  feePayer: Address;
  recentBlockhash: string;
  usesAddressLookupTables: boolean;
  instructions: DecodedInstruction[];
}

export type DecodeFailure = { ok: false; message: string };

const base64 = getBase64Encoder();
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

/** Largest transaction the network accepts (packet size). */
export const MAX_TRANSACTION_SIZE_BYTES = 1232;

/** Decodes a base64 wire transaction strictly: trailing bytes, bad indices or unknown versions are failures. */
export function decodeWireTransaction(base64Transaction: string): { ok: true; tx: DecodedTransaction } | DecodeFailure {
  let wireBytes: Uint8Array;
  try {
    wireBytes = new Uint8Array(base64.encode(base64Transaction));
  } catch {
    return { ok: false, message: "transaction is not valid base64" };
  }
  if (wireBytes.length > MAX_TRANSACTION_SIZE_BYTES) {
    return { ok: false, message: `transaction is ${wireBytes.length} bytes; the network limit is ${MAX_TRANSACTION_SIZE_BYTES}` };
  }
  try {
    const [transaction, consumed] = transactionDecoder.read(wireBytes, 0);
    if (consumed !== wireBytes.length) return { ok: false, message: "transaction has trailing bytes" };
    const messageBytes = new Uint8Array(transaction.messageBytes);
    const [message, messageConsumed] = messageDecoder.read(messageBytes, 0);
    if (messageConsumed !== messageBytes.length) return { ok: false, message: "transaction message has trailing bytes" };
    if (message.version !== "legacy" && message.version !== 0) {
      return { ok: false, message: `transaction message version ${String(message.version)} is not supported` };
    }
    const staticAccounts = message.staticAccounts;
    const header = message.header;
    const accountAt = (index: number): Address => {
      const account = staticAccounts[index];
      if (account === undefined) throw new RangeError(`account index ${index} is out of range`);
      return account;
    };
    const instructions = message.instructions.map((ix) => ({
      programAddress: accountAt(ix.programAddressIndex),
      accounts: (ix.accountIndices ?? []).map(accountAt),
      data: new Uint8Array(ix.data ?? new Uint8Array()),
    }));
    const signatures = staticAccounts.slice(0, header.numSignerAccounts).map((signer) => {
      const signature = transaction.signatures[signer];
      return signature && !isAllZero(signature) ? new Uint8Array(signature) : null;
    });
    if (staticAccounts.length === 0) return { ok: false, message: "transaction has no accounts" };
    const lookups = "addressTableLookups" in message ? (message.addressTableLookups ?? []) : [];
    return {
      ok: true,
      tx: {
        wireBytes,
        wireBase64: isCanonicalBase64(base64Transaction, wireBytes.length) ? base64Transaction : toBase64(wireBytes),
        messageBytes,
        version: message.version,
        signatures,
        staticAccounts,
        numRequiredSignatures: header.numSignerAccounts,
        numReadonlySignedAccounts: header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: header.numReadonlyNonSignerAccounts,
        feePayer: staticAccounts[0]!,
        recentBlockhash: message.lifetimeToken,
        usesAddressLookupTables: lookups.length > 0,
        instructions,
      },
    };
  } catch (error) {
    return { ok: false, message: `transaction could not be decoded (${(error as Error).message.slice(0, 120)})` };
  }
}

function isAllZero(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0) return false;
  return true;
}

/** Index of an account in the message, with its signer/writable roles from the header layout. */
export function accountRoles(tx: DecodedTransaction, index: number): { signer: boolean; writable: boolean } {
  const signer = index < tx.numRequiredSignatures;
  const writable = signer
    ? index < tx.numRequiredSignatures - tx.numReadonlySignedAccounts
    : index < tx.staticAccounts.length - tx.numReadonlyUnsignedAccounts;
  return { signer, writable };
}
