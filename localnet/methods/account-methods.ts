/**
 * Account reads: getAccountInfo, getMultipleAccounts, getBalance, getProgramAccounts.
 */
import { encodeAccount, type LocalAccount, parseAccountEncoding, parseDataSlice } from "../account-encoding";
import type { JsonValue } from "../json-bigint";
import type { LocalChain } from "../local-chain";
import type { RpcMethodTable } from "../rpc-dispatch";
import { invalidParams } from "../rpc-errors";
import {
  booleanOption,
  checkMinContextSlot,
  configParam,
  pubkeyParam,
  type RpcConfig,
  requiredParam,
} from "../rpc-params";
import { decodeBase58 } from "../wire-transaction";

const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_PROGRAM_ACCOUNT_FILTERS = 4;

export function accountMethods(chain: LocalChain): RpcMethodTable {
  const mintDecimals = (mint: string) => chain.mintDecimals(mint);

  function encodeWithConfig(account: LocalAccount | null, config: RpcConfig) {
    if (account === null) return null;
    const encoding = parseAccountEncoding(config.encoding, "binary");
    return encodeAccount(account, encoding, parseDataSlice(config.dataSlice), mintDecimals);
  }

  return {
    getAccountInfo: (params) => {
      const pubkey = pubkeyParam(requiredParam(params, 0, "pubkey"));
      const config = configParam(params, 1);
      checkMinContextSlot(chain, config);
      return { context: chain.context(), value: encodeWithConfig(chain.getAccount(pubkey), config) };
    },

    getMultipleAccounts: (params) => {
      const keys = requiredParam(params, 0, "pubkeys");
      if (!Array.isArray(keys)) throw invalidParams("Invalid params: expected an array of pubkeys");
      if (keys.length > MAX_MULTIPLE_ACCOUNTS) {
        throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      }
      const pubkeys = keys.map(pubkeyParam);
      const config = configParam(params, 1);
      checkMinContextSlot(chain, config);
      return {
        context: chain.context(),
        value: pubkeys.map((pubkey) => encodeWithConfig(chain.getAccount(pubkey), config)),
      };
    },

    getBalance: (params) => {
      const pubkey = pubkeyParam(requiredParam(params, 0, "pubkey"));
      checkMinContextSlot(chain, configParam(params, 1));
      return { context: chain.context(), value: chain.getAccount(pubkey)?.lamports ?? 0n };
    },

    getProgramAccounts: (params) => {
      const programId = pubkeyParam(requiredParam(params, 0, "program id"));
      const config = configParam(params, 1);
      checkMinContextSlot(chain, config);
      const filters = parseFilters(config.filters);
      const matches = chain
        .getProgramAccounts(programId)
        .filter(({ account }) => filters.every((filter) => filter(account.data)))
        .map(({ pubkey, account }) => ({ pubkey, account: encodeWithConfig(account, config) }));
      return booleanOption(config, "withContext", false) ? { context: chain.context(), value: matches } : matches;
    },
  };
}

type AccountDataFilter = (data: Uint8Array) => boolean;

/** getProgramAccounts filters: `{dataSize}` and `{memcmp: {offset, bytes, encoding?}}`. */
export function parseFilters(raw: JsonValue | undefined): AccountDataFilter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidParams("Invalid params: filters must be an array");
  if (raw.length > MAX_PROGRAM_ACCOUNT_FILTERS) {
    throw invalidParams(`Too many filters provided; max ${MAX_PROGRAM_ACCOUNT_FILTERS}`);
  }
  return raw.map((filter): AccountDataFilter => {
    if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
      throw invalidParams("Invalid params: invalid filter");
    }
    if (filter.dataSize !== undefined) {
      const size = Number(filter.dataSize);
      return (data) => data.length === size;
    }
    const memcmp = filter.memcmp;
    if (memcmp && typeof memcmp === "object" && !Array.isArray(memcmp) && typeof memcmp.bytes === "string") {
      const offset = Number(memcmp.offset ?? 0);
      const bytes =
        memcmp.encoding === "base64"
          ? new Uint8Array(Buffer.from(memcmp.bytes, "base64"))
          : decodeBase58OrThrow(memcmp.bytes);
      return (data) =>
        offset + bytes.length <= data.length && bytes.every((byte, index) => data[offset + index] === byte);
    }
    if (filter.tokenAccountState !== undefined) return (data) => data.length >= 165 && data[108] !== 0;
    throw invalidParams("Invalid params: unknown filter");
  });
}

function decodeBase58OrThrow(text: string): Uint8Array {
  try {
    return decodeBase58(text);
  } catch {
    throw invalidParams("Invalid params: memcmp bytes are not base58");
  }
}
