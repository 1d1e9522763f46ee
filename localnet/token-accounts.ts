/**
 * Reads SPL Token / Token-2022 mints and token accounts from raw account data, for the RPC views
 * that real nodes derive from them: getTokenAccountBalance, pre/postTokenBalances, jsonParsed.
 * Only the base layouts are read; Token-2022 extensions are recognised but not parsed.
 */
import { getAddressDecoder } from "@solana/kit";

export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";

const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
/** Token-2022: byte after the 165-byte base that tags an extended account (1 = mint, 2 = account). */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

const addressDecoder = getAddressDecoder();

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM_ID || owner === TOKEN_2022_PROGRAM_ID;
}

export interface TokenAccountInfo {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: "uninitialized" | "initialized" | "frozen";
  /** Rent-exempt reserve of a native (wSOL) account, null otherwise. */
  isNativeReserve: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface MintInfo {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function readOptionalAddress(data: Uint8Array, offset: number): string | null {
  return view(data).getUint32(offset, true) === 1
    ? addressDecoder.decode(data.subarray(offset + 4, offset + 36))
    : null;
}

/** The token account stored in `data`, or null if it is not an initialised token account. */
export function readTokenAccount(owner: string, data: Uint8Array): TokenAccountInfo | null {
  if (!isTokenProgram(owner) || data.length < TOKEN_ACCOUNT_SIZE) return null;
  if (data.length > TOKEN_ACCOUNT_SIZE) {
    if (owner !== TOKEN_2022_PROGRAM_ID || data[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_ACCOUNT) return null;
  }
  const state = data[108];
  if (state !== 1 && state !== 2) return null;
  const dataView = view(data);
  return {
    mint: addressDecoder.decode(data.subarray(0, 32)),
    owner: addressDecoder.decode(data.subarray(32, 64)),
    amount: dataView.getBigUint64(64, true),
    delegate: readOptionalAddress(data, 72),
    state: state === 1 ? "initialized" : "frozen",
    isNativeReserve: dataView.getUint32(109, true) === 1 ? dataView.getBigUint64(113, true) : null,
    delegatedAmount: dataView.getBigUint64(121, true),
    closeAuthority: readOptionalAddress(data, 129),
  };
}

/** The mint stored in `data`, or null if it is not an initialised mint. */
export function readMint(owner: string, data: Uint8Array): MintInfo | null {
  if (!isTokenProgram(owner)) return null;
  const isBaseMint = data.length === MINT_SIZE;
  const isExtendedMint =
    owner === TOKEN_2022_PROGRAM_ID &&
    data.length > ACCOUNT_TYPE_OFFSET &&
    data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT;
  if (!isBaseMint && !isExtendedMint) return null;
  if (data[45] !== 1) return null;
  return {
    mintAuthority: readOptionalAddress(data, 0),
    supply: view(data).getBigUint64(36, true),
    decimals: data[44] ?? 0,
    isInitialized: true,
    freezeAuthority: readOptionalAddress(data, 46),
  };
}

/** `amount / 10^decimals` as a plain decimal string without trailing zeros ("12.5", "0"). */
export function formatUiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}

/** The RPC `UiTokenAmount` object. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const uiAmountString = formatUiAmountString(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
