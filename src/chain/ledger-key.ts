import { toHex } from "./bytes";

/**
 * The settlement ledger's key of a transaction: SHA-256 of its message bytes, as hex. Every signature set of one
 * message has this key, so a payment re-signed or sent twice is still one ledger row (the cluster's status cache is
 * keyed alike).
 */
export async function ledgerKeyOf(messageBytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", messageBytes as Uint8Array<ArrayBuffer>)));
}
