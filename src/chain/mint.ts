import { type Address, getAddressDecoder } from "@solana/kit";
import type { AccountSnapshot } from "./accounts";
import { isTokenProgram, TOKEN_2022_PROGRAM_ADDRESS } from "./token-programs";

/** A mint as far as payments care: which token program owns it, its decimals, and its Token-2022 extensions. */
export interface MintInfo {
  address: Address;
  tokenProgram: Address;
  decimals: number;
  /** Token-2022 extension type ids present on the mint (empty for SPL Token). */
  extensionTypes: number[];
  /** DefaultAccountState extension value (1 initialized, 2 frozen), if present. */
  defaultAccountState: number | null;
  /** Who may freeze this mint's token accounts (a channel's escrow among them), or null when nobody can. */
  freezeAuthority: Address | null;
  /** Token-2022 MintCloseAuthority: who may close the mint once its supply is 0, or null when nobody can. */
  closeAuthority: Address | null;
}

const MINT_BASE_SIZE_BYTES = 82;
/** Token-2022 pads mints to the token-account size before the account-type byte and the TLV extensions. */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const DECIMALS_OFFSET = 44;
const IS_INITIALIZED_OFFSET = 45;
/** COption<Pubkey>: a u32 tag (1 = some), then the key. */
const FREEZE_AUTHORITY_TAG_OFFSET = 46;
const FREEZE_AUTHORITY_OFFSET = 50;
export const EXTENSION_DEFAULT_ACCOUNT_STATE = 6;
export const EXTENSION_MINT_CLOSE_AUTHORITY = 3;
/** OptionalNonZeroPubkey: 32 bytes, all zero when the authority is none. */
const OPTIONAL_PUBKEY_BYTES = 32;

/** Parses a mint account, or returns null when the account is not an initialized mint of a token program. */
export function parseMint(account: AccountSnapshot): MintInfo | null {
  if (!isTokenProgram(account.owner) || account.data.length < MINT_BASE_SIZE_BYTES) return null;
  const data = account.data;
  if (data[IS_INITIALIZED_OFFSET] !== 1) return null;
  const info: MintInfo = {
    address: account.address,
    tokenProgram: account.owner,
    decimals: data[DECIMALS_OFFSET]!,
    extensionTypes: [],
    defaultAccountState: null,
    freezeAuthority:
      data[FREEZE_AUTHORITY_TAG_OFFSET] === 1
        ? getAddressDecoder().decode(data.subarray(FREEZE_AUTHORITY_OFFSET, MINT_BASE_SIZE_BYTES))
        : null,
    closeAuthority: null,
  };
  if (data.length === MINT_BASE_SIZE_BYTES) return info;
  if (account.owner !== TOKEN_2022_PROGRAM_ADDRESS) return null;
  if (data.length <= ACCOUNT_TYPE_OFFSET || data[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_MINT) return null;

  // TLV entries: u16 type, u16 length, value.
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = ACCOUNT_TYPE_OFFSET + 1;
  while (offset + 4 <= data.length) {
    const type = view.getUint16(offset, true);
    const length = view.getUint16(offset + 2, true);
    if (type === 0) break; // uninitialized padding
    if (offset + 4 + length > data.length) return null; // malformed
    info.extensionTypes.push(type);
    if (type === EXTENSION_DEFAULT_ACCOUNT_STATE && length >= 1) info.defaultAccountState = data[offset + 4]!;
    if (type === EXTENSION_MINT_CLOSE_AUTHORITY && length >= OPTIONAL_PUBKEY_BYTES)
      info.closeAuthority = optionalPubkey(data.subarray(offset + 4, offset + 4 + OPTIONAL_PUBKEY_BYTES));
    offset += 4 + length;
  }
  return info;
}

function optionalPubkey(bytes: Uint8Array): Address | null {
  return bytes.some((byte) => byte !== 0) ? getAddressDecoder().decode(bytes) : null;
}
