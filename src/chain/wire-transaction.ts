import type { Address } from "@solana/kit";
import { encodeAddressAt, encodeBase58 } from "./base58";
import { decodeBase64Text, isCanonicalBase64, toBase64 } from "./bytes";
import { compactU16Size, readCompactU16 } from "./compact-u16";

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

/** Largest transaction the network accepts (packet size). */
export const MAX_TRANSACTION_SIZE_BYTES = 1232;

/**
 * Decodes a base64 wire transaction strictly: trailing bytes, bad indices, a signature count that differs from the
 * header's or unknown versions are failures. Hand-written over the wire format (legacy and v0 messages) because
 * kit's generic codecs cost a large share of /verify's CPU; test/unit/chain/wire-transaction.test.ts holds it to kit's
 * reading of the same bytes.
 */
export function decodeWireTransaction(base64Transaction: string): { ok: true; tx: DecodedTransaction } | DecodeFailure {
  const wireBytes = decodeBase64Text(base64Transaction);
  if (!wireBytes) return { ok: false, message: "transaction is not valid base64" };
  if (wireBytes.length > MAX_TRANSACTION_SIZE_BYTES) {
    return {
      ok: false,
      message: `transaction is ${wireBytes.length} bytes; the network limit is ${MAX_TRANSACTION_SIZE_BYTES}`,
    };
  }
  try {
    return { ok: true, tx: readTransaction(wireBytes, base64Transaction) };
  } catch (error) {
    return { ok: false, message: `transaction could not be decoded (${(error as Error).message.slice(0, 120)})` };
  }
}

class WireReader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  u8(what: string): number {
    const byte = this.bytes[this.offset];
    if (byte === undefined) throw new RangeError(`transaction ends inside ${what}`);
    this.offset++;
    return byte;
  }

  compactU16(what: string): number {
    const value = readCompactU16(this.bytes, this.offset, what);
    this.offset += compactU16Size(value);
    return value;
  }

  take(length: number, what: string): Uint8Array {
    const end = this.offset + length;
    if (end > this.bytes.length) throw new RangeError(`transaction ends inside ${what}`);
    const slice = this.bytes.subarray(this.offset, end);
    this.offset = end;
    return slice;
  }

  address(what: string): Address {
    const start = this.offset;
    this.take(32, what);
    return encodeAddressAt(this.bytes, start) as Address;
  }
}

function readTransaction(wireBytes: Uint8Array, base64Transaction: string): DecodedTransaction {
  const reader = new WireReader(wireBytes);
  if (wireBytes.length > 0 && (wireBytes[0]! & 0x80) !== 0)
    throw new RangeError("transaction version 1 is not supported");
  const signatureCount = reader.compactU16("the signature count");
  const rawSignatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) rawSignatures.push(reader.take(64, "the signatures"));
  const messageStart = reader.offset;
  const messageBytes = wireBytes.slice(messageStart);

  const prefix = reader.u8("the message header");
  let version: "legacy" | 0 = "legacy";
  let numRequiredSignatures = prefix;
  if (prefix & 0x80) {
    const number = prefix & 0x7f;
    if (number !== 0) throw new RangeError(`transaction message version ${number} is not supported`);
    version = 0;
    numRequiredSignatures = reader.u8("the message header");
  }
  const numReadonlySignedAccounts = reader.u8("the message header");
  const numReadonlyUnsignedAccounts = reader.u8("the message header");
  const accountCount = reader.compactU16("the account count");
  if (accountCount === 0) throw new RangeError("transaction has no accounts");
  const staticAccounts: Address[] = [];
  for (let i = 0; i < accountCount; i++) staticAccounts.push(reader.address("the account keys"));
  if (new Set(staticAccounts).size !== staticAccounts.length)
    throw new RangeError("transaction lists an account twice");
  if (numRequiredSignatures > accountCount)
    throw new RangeError("the header requires more signers than there are accounts");
  if (signatureCount !== numRequiredSignatures) {
    throw new RangeError(
      `the transaction carries ${signatureCount} signatures; its message requires ${numRequiredSignatures}`,
    );
  }
  const recentBlockhash = encodeBase58(reader.take(32, "the recent blockhash"));

  const accountAt = (index: number): Address => {
    const account = staticAccounts[index];
    if (account === undefined) throw new RangeError(`account index ${index} is out of range`);
    return account;
  };
  const instructionCount = reader.compactU16("the instruction count");
  const instructions: DecodedInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programAddress = accountAt(reader.u8("an instruction"));
    const accountIndexCount = reader.compactU16("an instruction's account count");
    const accounts: Address[] = [];
    for (let j = 0; j < accountIndexCount; j++) accounts.push(accountAt(reader.u8("an instruction's accounts")));
    const data = reader.take(reader.compactU16("an instruction's data length"), "an instruction's data").slice();
    instructions.push({ programAddress, accounts, data });
  }
  let lookupCount = 0;
  if (version === 0) {
    lookupCount = reader.compactU16("the lookup table count");
    for (let i = 0; i < lookupCount; i++) {
      reader.take(32, "a lookup table");
      reader.take(reader.compactU16("a lookup table's writable indexes"), "a lookup table's writable indexes");
      reader.take(reader.compactU16("a lookup table's readonly indexes"), "a lookup table's readonly indexes");
    }
  }
  if (reader.offset !== wireBytes.length) throw new RangeError("transaction has trailing bytes");

  const signatures = rawSignatures.map((signature) => (isAllZero(signature) ? null : signature.slice()));
  return {
    wireBytes,
    wireBase64: isCanonicalBase64(base64Transaction, wireBytes.length) ? base64Transaction : toBase64(wireBytes),
    messageBytes,
    version,
    signatures,
    staticAccounts,
    numRequiredSignatures,
    numReadonlySignedAccounts,
    numReadonlyUnsignedAccounts,
    feePayer: staticAccounts[0]!,
    recentBlockhash,
    usesAddressLookupTables: lookupCount > 0,
    instructions,
  };
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
