/**
 * Account views in the shapes real nodes return for getAccountInfo / getMultipleAccounts /
 * getProgramAccounts: data as a legacy base58 string (no encoding given), ["…","base58"],
 * ["…","base64"] or jsonParsed (SPL Token mints and accounts; other accounts fall back to base64
 * like on a real node), with optional dataSlice.
 */
import { getBase58Decoder } from "@solana/kit";
import { invalidParams } from "./rpc-errors";
import { readMint, readTokenAccount, TOKEN_2022_PROGRAM_ID, uiTokenAmount } from "./token-accounts";

/** Every rent-exempt account reports this since rent collection ended. */
export const RENT_EXEMPT_RENT_EPOCH = 18_446_744_073_709_551_615n;
const MAX_BASE58_BYTES = 128;

export type AccountEncoding = "binary" | "base58" | "base64" | "jsonParsed";

export interface LocalAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

export interface DataSlice {
  offset: number;
  length: number;
}

const base58 = getBase58Decoder();

export function parseAccountEncoding(raw: unknown, fallback: AccountEncoding): AccountEncoding {
  if (raw === undefined || raw === null) return fallback;
  if (raw === "binary" || raw === "base58" || raw === "base64" || raw === "jsonParsed") return raw;
  if (raw === "base64+zstd")
    throw invalidParams("Invalid params: base64+zstd encoding is not supported by the local chain");
  throw invalidParams(
    `Invalid params: unknown variant ` +
      `\`${String(raw)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\``,
  );
}

export function parseDataSlice(raw: unknown): DataSlice | undefined {
  if (raw === undefined || raw === null) return undefined;
  const slice = raw as { offset?: unknown; length?: unknown };
  const offset = Number(slice.offset);
  const length = Number(slice.length);
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw invalidParams("Invalid params: dataSlice needs non-negative integer offset and length");
  }
  return { offset, length };
}

/** Looks up a mint's decimals (jsonParsed token accounts show UI amounts). */
export type MintDecimalsLookup = (mint: string) => number | null;

/** Encodes one account; throws the node's error when base58 is asked for large data. */
export function encodeAccount(
  account: LocalAccount,
  encoding: AccountEncoding,
  dataSlice: DataSlice | undefined,
  mintDecimals: MintDecimalsLookup,
) {
  const sliced = dataSlice
    ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length)
    : account.data;
  return {
    data: encodeAccountData(account, sliced, encoding, dataSlice !== undefined, mintDecimals),
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EXEMPT_RENT_EPOCH,
    space: account.data.length,
  };
}

function encodeAccountData(
  account: LocalAccount,
  sliced: Uint8Array,
  encoding: AccountEncoding,
  isSliced: boolean,
  mintDecimals: MintDecimalsLookup,
) {
  switch (encoding) {
    case "binary":
    case "base58":
      if (sliced.length > MAX_BASE58_BYTES) {
        throw invalidParams("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.");
      }
      return encoding === "binary" ? base58.decode(sliced) : [base58.decode(sliced), "base58"];
    case "base64":
      return [Buffer.from(sliced).toString("base64"), "base64"];
    case "jsonParsed": {
      // A real node parses only whole accounts of known programs; everything else is base64.
      const parsed = isSliced ? null : parseTokenProgramAccount(account, mintDecimals);
      return parsed ?? [Buffer.from(sliced).toString("base64"), "base64"];
    }
  }
}

function programLabel(account: LocalAccount): string {
  return account.owner === TOKEN_2022_PROGRAM_ID ? "spl-token-2022" : "spl-token";
}

/** jsonParsed form of an SPL Token / Token-2022 mint or token account, or null. */
export function parseTokenProgramAccount(account: LocalAccount, mintDecimals: MintDecimalsLookup) {
  const tokenAccount = readTokenAccount(account.owner, account.data);
  if (tokenAccount) {
    const decimals = mintDecimals(tokenAccount.mint);
    if (decimals === null) return null;
    const info: Record<string, unknown> = {
      isNative: tokenAccount.isNativeReserve !== null,
      mint: tokenAccount.mint,
      owner: tokenAccount.owner,
      state: tokenAccount.state,
      tokenAmount: uiTokenAmount(tokenAccount.amount, decimals),
    };
    if (tokenAccount.delegate !== null) {
      info.delegate = tokenAccount.delegate;
      info.delegatedAmount = uiTokenAmount(tokenAccount.delegatedAmount, decimals);
    }
    if (tokenAccount.isNativeReserve !== null) {
      info.rentExemptReserve = uiTokenAmount(tokenAccount.isNativeReserve, decimals);
    }
    if (tokenAccount.closeAuthority !== null) info.closeAuthority = tokenAccount.closeAuthority;
    return { program: programLabel(account), parsed: { info, type: "account" }, space: account.data.length };
  }
  const mint = readMint(account.owner, account.data);
  if (!mint) return null;
  return {
    program: programLabel(account),
    parsed: {
      info: {
        decimals: mint.decimals,
        freezeAuthority: mint.freezeAuthority,
        isInitialized: mint.isInitialized,
        mintAuthority: mint.mintAuthority,
        supply: mint.supply.toString(),
      },
      type: "mint",
    },
    space: account.data.length,
  };
}
