/**
 * Transaction methods: sendTransaction, simulateTransaction, getSignatureStatuses, getTransaction,
 * getSignaturesForAddress.
 */
import { getBase58Decoder } from "@solana/kit";
import { parseAccountEncoding } from "../account-encoding";
import type { JsonValue } from "../json-bigint";
import type { LocalChain } from "../local-chain";
import { jsonParsedInstruction } from "../parsed-instructions";
import type { RpcMethodTable } from "../rpc-dispatch";
import { invalidParams, RPC_ERROR_CODE, RpcError } from "../rpc-errors";
import {
  booleanOption,
  checkMinContextSlot,
  configParam,
  pubkeyParam,
  type RpcConfig,
  requiredParam,
  signatureParam,
} from "../rpc-params";
import type { LedgerEntry } from "../transaction-ledger";
import {
  encodeReturnData,
  jsonParsedInnerInstructions,
  simulateTransaction,
  submitTransaction,
} from "../transaction-pipeline";
import { decodeWireString, isStaticKeyWritable, parseWireTransaction, type WireTransaction } from "../wire-transaction";

const MAX_SIGNATURE_STATUSES = 256;
/** Without searchTransactionHistory a node only consults its status cache (recent ~300 slots). */
const STATUS_CACHE_SLOTS = 300n;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
const MEMO_PROGRAM_IDS = new Set([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

const base58 = getBase58Decoder();

export function transactionMethods(chain: LocalChain): RpcMethodTable {
  return {
    sendTransaction: (params) => {
      const config = configParam(params, 1);
      const wire = decodeTransactionParam(params, config);
      checkMinContextSlot(chain, config);
      return submitTransaction(chain, wire, { skipPreflight: booleanOption(config, "skipPreflight", false) });
    },

    simulateTransaction: (params) => {
      const config = configParam(params, 1);
      const wire = decodeTransactionParam(params, config);
      checkMinContextSlot(chain, config);
      const value = simulateTransaction(chain, wire, {
        sigVerify: booleanOption(config, "sigVerify", false),
        replaceRecentBlockhash: booleanOption(config, "replaceRecentBlockhash", false),
        innerInstructions: booleanOption(config, "innerInstructions", false),
        accounts: parseSimulationAccounts(config.accounts),
      });
      return { context: chain.context(), value };
    },

    getSignatureStatuses: (params) => {
      const signatures = requiredParam(params, 0, "signatures");
      if (!Array.isArray(signatures)) throw invalidParams("Invalid params: expected an array of signatures");
      if (signatures.length > MAX_SIGNATURE_STATUSES) {
        throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      }
      const searchHistory = booleanOption(configParam(params, 1), "searchTransactionHistory", false);
      const { slot: currentSlot } = chain.sync();
      const value = signatures.map(signatureParam).map((signature) => {
        const entry = chain.ledger.get(signature);
        if (entry === undefined) return null;
        if (!searchHistory && entry.slot + STATUS_CACHE_SLOTS < currentSlot) return null;
        const lagging = isStillLagging(chain, entry);
        return {
          slot: entry.slot,
          confirmations: lagging ? 0 : null,
          err: entry.err,
          status: entry.err === null ? { Ok: null } : { Err: entry.err },
          confirmationStatus: lagging ? "processed" : "finalized",
        };
      });
      return { context: chain.context(), value };
    },

    getTransaction: (params) => {
      const signature = signatureParam(requiredParam(params, 0, "signature"));
      const config = configParam(params, 1);
      if (config.commitment === "processed") {
        throw invalidParams("Method does not support commitment below `confirmed`");
      }
      const entry = chain.ledger.get(signature);
      if (entry === undefined || isStillLagging(chain, entry)) return null;
      return formatConfirmedTransaction(entry, config);
    },

    getSignaturesForAddress: (params) => {
      const address = pubkeyParam(requiredParam(params, 0, "address"));
      const config = configParam(params, 1);
      checkMinContextSlot(chain, config);
      const limit = config.limit === undefined ? MAX_SIGNATURES_FOR_ADDRESS : Number(config.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) {
        throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
      }
      const before = config.before === undefined ? undefined : signatureParam(config.before);
      const until = config.until === undefined ? undefined : signatureParam(config.until);
      const results = [];
      for (const entry of chain.ledger.newestFirstMentioning(address, before, until)) {
        results.push({
          signature: entry.signature,
          slot: entry.slot,
          err: entry.err,
          memo: memoOf(entry.transaction),
          blockTime: entry.blockTime,
          confirmationStatus: "finalized",
        });
        if (results.length >= limit) break;
      }
      return results;
    },
  };
}

function decodeTransactionParam(params: readonly JsonValue[], config: RpcConfig): WireTransaction {
  const encoded = requiredParam(params, 0, "transaction");
  if (typeof encoded !== "string") throw invalidParams("Invalid params: transaction must be a string");
  const encoding = config.encoding ?? "base58";
  if (encoding !== "base58" && encoding !== "base64") {
    throw invalidParams(
      `Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`,
    );
  }
  return parseWireTransaction(decodeWireString(encoded, encoding));
}

function parseSimulationAccounts(raw: JsonValue | undefined) {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw) || !Array.isArray(raw.addresses)) {
    throw invalidParams("Invalid params: accounts must be {addresses, encoding}");
  }
  const encoding = parseAccountEncoding(raw.encoding, "base64");
  if (encoding === "binary" || encoding === "base58") throw invalidParams("base58 encoding not supported");
  return { addresses: raw.addresses.map(pubkeyParam), encoding };
}

/** The `[len] text` memo summary getSignaturesForAddress reports. */
function memoOf(transaction: WireTransaction): string | null {
  const { message } = transaction;
  const memos = message.instructions
    .filter((instruction) => MEMO_PROGRAM_IDS.has(message.staticAccountKeys[instruction.programIdIndex] ?? ""))
    .map((instruction) => `[${instruction.data.length}] ${new TextDecoder().decode(instruction.data)}`);
  return memos.length === 0 ? null : memos.join("; ");
}

// -------------------------------------------------------------------------------------------------
// getTransaction encodings

function formatConfirmedTransaction(entry: LedgerEntry, config: RpcConfig) {
  const { message } = entry.transaction;
  const maxVersion = config.maxSupportedTransactionVersion;
  if (message.version === 0 && (maxVersion === undefined || maxVersion === null)) {
    throw new RpcError(
      RPC_ERROR_CODE.UNSUPPORTED_TRANSACTION_VERSION,
      "Transaction version (0) is not supported by the requesting client. Please try the request again with the " +
        'following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const encoding = config.encoding ?? "json";
  let transaction: unknown;
  switch (encoding) {
    case "json":
      transaction = jsonTransaction(entry);
      break;
    case "jsonParsed":
      transaction = jsonParsedTransaction(entry);
      break;
    case "base64":
      transaction = [Buffer.from(entry.transaction.bytes).toString("base64"), "base64"];
      break;
    case "base58":
      transaction = [base58.decode(entry.transaction.bytes), "base58"];
      break;
    default:
      throw invalidParams(
        `Invalid params: unknown variant ` +
          `\`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``,
      );
  }
  return {
    slot: entry.slot,
    blockTime: entry.blockTime,
    ...(maxVersion === undefined || maxVersion === null ? {} : { version: message.version }),
    transaction,
    meta: transactionMeta(entry, encoding === "jsonParsed"),
  };
}

function transactionMeta(entry: LedgerEntry, parsed: boolean) {
  const innerInstructions = parsed
    ? jsonParsedInnerInstructions(entry.innerInstructions, entry.accountKeys)
    : entry.innerInstructions.map((record) => ({
        index: record.index,
        instructions: record.instructions.map((instruction) => ({
          programIdIndex: instruction.programIdIndex,
          accounts: instruction.accounts,
          data: base58.decode(instruction.data),
          stackHeight: instruction.stackHeight,
        })),
      }));
  const returnData = encodeReturnData(entry.returnData);
  return {
    err: entry.err,
    status: entry.err === null ? { Ok: null } : { Err: entry.err },
    fee: entry.fee,
    preBalances: entry.preBalances,
    postBalances: entry.postBalances,
    innerInstructions,
    logMessages: entry.logMessages,
    preTokenBalances: entry.preTokenBalances,
    postTokenBalances: entry.postTokenBalances,
    rewards: [],
    ...(parsed ? {} : { loadedAddresses: entry.loadedAddresses }),
    ...(returnData === null ? {} : { returnData }),
    computeUnitsConsumed: entry.computeUnitsConsumed,
  };
}

function jsonTransaction(entry: LedgerEntry) {
  const { message, signatures } = entry.transaction;
  return {
    signatures: signatures.map((signature) => base58.decode(signature)),
    message: {
      accountKeys: message.staticAccountKeys,
      header: message.header,
      recentBlockhash: message.recentBlockhash,
      instructions: message.instructions.map((instruction) => ({
        programIdIndex: instruction.programIdIndex,
        accounts: instruction.accountIndexes,
        data: base58.decode(instruction.data),
        stackHeight: null,
      })),
      ...(message.version === 0 ? { addressTableLookups: message.addressTableLookups } : {}),
    },
  };
}

function jsonParsedTransaction(entry: LedgerEntry) {
  const { message, signatures } = entry.transaction;
  const staticCount = message.staticAccountKeys.length;
  const loadedWritableCount = entry.loadedAddresses.writable.length;
  const accountKeys = entry.accountKeys.map((pubkey, index) => ({
    pubkey,
    signer: index < message.header.numRequiredSignatures,
    source: index < staticCount ? "transaction" : "lookupTable",
    writable: index < staticCount ? isStaticKeyWritable(message, index) : index < staticCount + loadedWritableCount,
  }));
  return {
    signatures: signatures.map((signature) => base58.decode(signature)),
    message: {
      accountKeys,
      recentBlockhash: message.recentBlockhash,
      instructions: message.instructions.map((instruction) =>
        jsonParsedInstruction({
          programId: entry.accountKeys[instruction.programIdIndex] ?? "",
          accounts: instruction.accountIndexes.map((index) => entry.accountKeys[index] ?? ""),
          data: instruction.data,
          stackHeight: null,
        }),
      ),
      ...(message.version === 0 ? { addressTableLookups: message.addressTableLookups } : {}),
    },
  };
}

/** Whether a landed transaction is still short of "confirmed" (real timing, or its fee payer's test-only lag). */
function isStillLagging(chain: LocalChain, entry: LedgerEntry): boolean {
  return Date.now() < chain.confirmedAtMs(entry);
}
