/**
 * Resolves a v0 message's address-table lookups into the loaded writable/readonly addresses, like
 * the node does while sanitising (the RPC layer needs the full key list for balances and
 * getTransaction's `loadedAddresses`; litesvm resolves them again on its own when executing).
 */
import type { LocalAccount } from "./account-encoding";
import type { RpcTransactionError } from "./transaction-errors";
import type { LoadedAddresses } from "./transaction-ledger";
import { type ParsedMessage, toBase58 } from "./wire-transaction";

export const ADDRESS_LOOKUP_TABLE_PROGRAM_ID = "AddressLookupTab1e1111111111111111111111111";
/** Serialised LookupTableMeta (type tag, deactivation slot, extension info, authority, padding). */
const LOOKUP_TABLE_META_SIZE = 56;

export type LookupResolution = { ok: true; loaded: LoadedAddresses } | { ok: false; err: RpcTransactionError };

export function resolveLookupTables(
  message: ParsedMessage,
  readAccount: (pubkey: string) => LocalAccount | null,
): LookupResolution {
  const loaded: LoadedAddresses = { writable: [], readonly: [] };
  for (const lookup of message.addressTableLookups) {
    const table = readAccount(lookup.accountKey);
    if (table === null) return { ok: false, err: "AddressLookupTableNotFound" };
    if (table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ID) return { ok: false, err: "InvalidAddressLookupTableOwner" };
    const body = table.data.subarray(LOOKUP_TABLE_META_SIZE);
    if (table.data.length < LOOKUP_TABLE_META_SIZE || body.length % 32 !== 0) {
      return { ok: false, err: "InvalidAddressLookupTableData" };
    }
    const addressCount = body.length / 32;
    const pick = (index: number) => toBase58(body.subarray(index * 32, index * 32 + 32));
    for (const index of [...lookup.writableIndexes, ...lookup.readonlyIndexes]) {
      if (index >= addressCount) return { ok: false, err: "InvalidAddressLookupTableIndex" };
    }
    loaded.writable.push(...lookup.writableIndexes.map(pick));
    loaded.readonly.push(...lookup.readonlyIndexes.map(pick));
  }
  return { ok: true, loaded };
}
