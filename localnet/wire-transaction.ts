/**
 * Decodes and sanitises a wire transaction (legacy or v0) the way an Agave RPC node does before it
 * simulates or forwards it, and verifies its ed25519 signatures. The node needs the parsed message
 * for its own checks (blockhash window, duplicate signatures, fees, balances); litesvm gets the
 * original bytes.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { invalidParams, RPC_ERROR_CODE, RpcError } from "./rpc-errors";

/** Largest serialised transaction a node accepts (one UDP packet minus headers). */
export const PACKET_DATA_SIZE_BYTES = 1232;
const MAX_BASE64_ENCODED_SIZE = 1644; // ceil(1232 / 3) * 4
const MAX_BASE58_ENCODED_SIZE = 1683; // 1232 * log(256) / log(58), rounded up

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accountIndexes: number[];
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface ParsedMessage {
  version: "legacy" | 0;
  header: MessageHeader;
  staticAccountKeys: string[];
  recentBlockhash: string;
  /** Where the blockhash sits inside the message bytes (simulateTransaction's replaceRecentBlockhash). */
  recentBlockhashOffset: number;
  instructions: CompiledInstruction[];
  addressTableLookups: AddressTableLookup[];
}

export interface WireTransaction {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  /** Base58 of the first signature: the transaction id. */
  signature: string;
  messageBytes: Uint8Array;
  message: ParsedMessage;
}

const base58 = getBase58Decoder();

export function toBase58(bytes: Uint8Array): string {
  return base58.decode(bytes);
}

const addressCache = new Map<string, string>();

/** toBase58 for 32-byte keys, memoised: the same accounts appear in transaction after transaction. */
function addressToBase58(bytes: Uint8Array): string {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  let text = addressCache.get(key);
  if (text === undefined) {
    text = base58.decode(bytes);
    if (addressCache.size >= 100_000) addressCache.clear();
    addressCache.set(key, text);
  }
  return text;
}

/** Thrown for bytes that do not deserialise; the caller maps it to the RPC error. */
class TruncatedError extends Error {}

class ByteReader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  u8(): number {
    const value = this.bytes[this.offset];
    if (value === undefined) throw new TruncatedError("failed to fill whole buffer");
    this.offset++;
    return value;
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new TruncatedError("failed to fill whole buffer");
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  /** Solana's compact-u16 ("shortvec") length prefix. */
  shortVecLength(): number {
    let value = 0;
    for (let shift = 0; shift <= 14; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new TruncatedError("invalid compact-u16");
  }

  byteList(): number[] {
    return Array.from(this.take(this.shortVecLength()));
  }
}

/** Decodes the base58/base64 string a client sent, with Agave's size limits and messages. */
export function decodeWireString(encoded: string, encoding: "base58" | "base64"): Uint8Array {
  const maxEncoded = encoding === "base58" ? MAX_BASE58_ENCODED_SIZE : MAX_BASE64_ENCODED_SIZE;
  if (encoded.length > maxEncoded) {
    throw invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too ` +
        `large: ${encoded.length} bytes (max: encoded/raw ${maxEncoded}/${PACKET_DATA_SIZE_BYTES})`,
    );
  }
  let bytes: Uint8Array;
  if (encoding === "base64") {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded))
      throw invalidParams(`invalid base64 encoding: ${encoded.slice(0, 16)}`);
    bytes = new Uint8Array(Buffer.from(encoded, "base64"));
  } else {
    try {
      bytes = decodeBase58(encoded);
    } catch {
      throw invalidParams(`invalid base58 encoding: ${encoded.slice(0, 16)}`);
    }
  }
  if (bytes.length > PACKET_DATA_SIZE_BYTES) {
    throw invalidParams(
      `decoded solana_transaction::versioned::VersionedTransaction too ` +
        `large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE_BYTES} bytes)`,
    );
  }
  return bytes;
}

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Strict base58 → bytes (kit's codec is lenient about some inputs). */
export function decodeBase58(text: string): Uint8Array {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_ALPHABET.indexOf(char);
    if (digit < 0) throw new Error(`invalid base58 character ${char}`);
    value = value * 58n + BigInt(digit);
  }
  const body: number[] = [];
  while (value > 0n) {
    body.push(Number(value & 0xffn));
    value >>= 8n;
  }
  let leadingZeros = 0;
  while (text[leadingZeros] === "1") leadingZeros++;
  return Uint8Array.from([...new Array<number>(leadingZeros).fill(0), ...body.reverse()]);
}

/** Parses transaction bytes; throws RpcError -32602 with Agave's wording when they are malformed. */
export function parseWireTransaction(bytes: Uint8Array): WireTransaction {
  const reader = new ByteReader(bytes);
  let signatures: Uint8Array[];
  let messageStart: number;
  let message: ParsedMessage;
  try {
    const signatureCount = reader.shortVecLength();
    signatures = [];
    for (let index = 0; index < signatureCount; index++) signatures.push(reader.take(64));
    messageStart = reader.offset;
    message = parseMessage(reader);
  } catch (error) {
    if (error instanceof RpcError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidParams(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: io error: ${reason}`,
    );
  }
  if (reader.offset !== bytes.length) {
    throw invalidParams("failed to deserialize solana_transaction::versioned::VersionedTransaction: Trailing bytes");
  }
  sanitize(signatures, message);
  const first = signatures[0];
  if (first === undefined) throw sanitizeFailure();
  return {
    bytes,
    signatures,
    signature: toBase58(first),
    messageBytes: bytes.subarray(messageStart),
    message,
  };
}

/** Parses a bare message (getFeeForMessage). */
export function parseMessageBytes(bytes: Uint8Array): ParsedMessage {
  const reader = new ByteReader(bytes);
  try {
    const message = parseMessage(reader);
    if (reader.offset !== bytes.length) throw new TruncatedError("Trailing bytes");
    return message;
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw invalidParams(`invalid message: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parseMessage(reader: ByteReader): ParsedMessage {
  const messageStart = reader.offset;
  let version: "legacy" | 0 = "legacy";
  const first = reader.bytes[reader.offset];
  if (first !== undefined && (first & 0x80) !== 0) {
    reader.u8();
    const declared = first & 0x7f;
    if (declared !== 0) {
      throw invalidParams(
        `failed to deserialize solana_transaction::versioned::VersionedTransaction: invalid value: integer ` +
          `\`${declared}\`, expected a valid transaction message version`,
      );
    }
    version = 0;
  }
  const header: MessageHeader = {
    numRequiredSignatures: reader.u8(),
    numReadonlySignedAccounts: reader.u8(),
    numReadonlyUnsignedAccounts: reader.u8(),
  };
  const keyCount = reader.shortVecLength();
  const staticAccountKeys: string[] = [];
  for (let index = 0; index < keyCount; index++) staticAccountKeys.push(addressToBase58(reader.take(32)));
  const recentBlockhashOffset = reader.offset - messageStart;
  const recentBlockhash = toBase58(reader.take(32));
  const instructionCount = reader.shortVecLength();
  const instructions: CompiledInstruction[] = [];
  for (let index = 0; index < instructionCount; index++) {
    const programIdIndex = reader.u8();
    const accountIndexes = reader.byteList();
    const data = reader.take(reader.shortVecLength());
    instructions.push({ programIdIndex, accountIndexes, data });
  }
  const addressTableLookups: AddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.shortVecLength();
    for (let index = 0; index < lookupCount; index++) {
      const accountKey = addressToBase58(reader.take(32));
      const writableIndexes = reader.byteList();
      const readonlyIndexes = reader.byteList();
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  return {
    version,
    header,
    staticAccountKeys,
    recentBlockhash,
    recentBlockhashOffset,
    instructions,
    addressTableLookups,
  };
}

function sanitizeFailure(): RpcError {
  return invalidParams("invalid transaction: Transaction failed to sanitize accounts offsets correctly");
}

/** The structural checks of `VersionedTransaction::sanitize` and `SanitizedMessage::try_new`. */
function sanitize(signatures: Uint8Array[], message: ParsedMessage): void {
  const { header, staticAccountKeys, instructions, addressTableLookups } = message;
  const loadedCount = addressTableLookups.reduce(
    (sum, lookup) => sum + lookup.writableIndexes.length + lookup.readonlyIndexes.length,
    0,
  );
  const totalKeys = staticAccountKeys.length + loadedCount;
  const ok =
    header.numRequiredSignatures > 0 &&
    signatures.length === header.numRequiredSignatures &&
    header.numReadonlySignedAccounts < header.numRequiredSignatures &&
    header.numRequiredSignatures + header.numReadonlyUnsignedAccounts <= staticAccountKeys.length &&
    totalKeys <= 256 &&
    addressTableLookups.every((lookup) => lookup.writableIndexes.length + lookup.readonlyIndexes.length > 0) &&
    instructions.every(
      (instruction) =>
        instruction.programIdIndex > 0 &&
        instruction.programIdIndex < staticAccountKeys.length &&
        instruction.accountIndexes.every((index) => index < totalKeys),
    );
  if (!ok) throw sanitizeFailure();
  if (new Set(staticAccountKeys).size !== staticAccountKeys.length) {
    throw invalidParams("invalid transaction: Account loaded twice");
  }
}

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const publicKeyCache = new Map<string, KeyObject>();

function publicKeyObject(base58Address: string): KeyObject {
  let key = publicKeyCache.get(base58Address);
  if (key === undefined) {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, decodeBase58(base58Address)]),
      format: "der",
      type: "spki",
    });
    if (publicKeyCache.size > 10_000) publicKeyCache.clear();
    publicKeyCache.set(base58Address, key);
  }
  return key;
}

/** True when every required signature is a valid ed25519 signature of the message by its signer. */
export function verifySignatures(transaction: WireTransaction): boolean {
  return transaction.signatures.every((signature, index) => {
    const signer = transaction.message.staticAccountKeys[index];
    if (signer === undefined) return false;
    try {
      return verify(null, transaction.messageBytes, publicKeyObject(signer), signature);
    } catch {
      return false;
    }
  });
}

export function signatureVerificationFailure(): RpcError {
  return new RpcError(
    RPC_ERROR_CODE.TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
    "Transaction signature verification failure",
  );
}

/** Whether the static key at `index` is writable according to the message header. */
export function isStaticKeyWritable(message: ParsedMessage, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = message.header;
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts;
  return index < message.staticAccountKeys.length - numReadonlyUnsignedAccounts;
}
