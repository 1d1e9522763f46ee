/**
 * Instructions in the JSON shape an Agave node answers with `jsonParsed` (getTransaction) and with
 * `innerInstructions: true` (simulateTransaction, which always parses): programs the node knows are
 * `{program, programId, parsed: {type, info}, stackHeight}`, everything else is "partially decoded"
 * (`{programId, accounts, data (base58), stackHeight}`), exactly as the node falls back when a program
 * or one of its instructions is not parsable.
 *
 * Field names, order of accounts and value types follow Agave's transaction-status parsers
 * (parse_system, parse_token, parse_associated_token, the memo parser). Parsed here: System
 * (createAccount, assign, transfer, allocate, advanceNonce), SPL Token and Token-2022 (the base
 * instruction set, no extension instructions), the Associated Token program (create,
 * createIdempotent) and Memo. Anything else of those programs is partially decoded (a real node
 * parses more: localnet/README.md "Known gaps").
 */
import { getBase58Decoder } from "@solana/kit";
import { toBase58 } from "./wire-transaction";

const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const MEMO_PROGRAM_IDS = new Set([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

const base58 = getBase58Decoder();

/** One compiled instruction with its accounts resolved to addresses. */
export interface ResolvedInstruction {
  programId: string;
  accounts: readonly string[];
  data: Uint8Array;
  stackHeight: number | null;
}

type Info = Record<string, unknown>;
interface ParsedBody {
  type: string;
  info: Info;
}

export function jsonParsedInstruction(ix: ResolvedInstruction) {
  const parsed = parseKnown(ix);
  if (parsed === null) {
    return {
      programId: ix.programId,
      accounts: [...ix.accounts],
      data: base58.decode(ix.data),
      stackHeight: ix.stackHeight,
    };
  }
  return { program: parsed.program, programId: ix.programId, parsed: parsed.body, stackHeight: ix.stackHeight };
}

function parseKnown(ix: ResolvedInstruction): { program: string; body: ParsedBody | string } | null {
  if (ix.programId === SYSTEM_PROGRAM_ID) return wrap("system", parseSystem(ix));
  if (ix.programId === TOKEN_PROGRAM_ID || ix.programId === TOKEN_2022_PROGRAM_ID)
    return wrap("spl-token", parseToken(ix));
  if (ix.programId === ASSOCIATED_TOKEN_PROGRAM_ID) return wrap("spl-associated-token-account", parseAssociated(ix));
  if (MEMO_PROGRAM_IDS.has(ix.programId)) {
    try {
      return { program: "spl-memo", body: new TextDecoder("utf-8", { fatal: true }).decode(ix.data) };
    } catch {
      return null;
    }
  }
  return null;
}

function wrap(program: string, body: ParsedBody | null) {
  return body === null ? null : { program, body };
}

// -------------------------------------------------------------------------------------------------
// System (bincode: u32 discriminator; trailing bytes ignored, as bincode and the program ignore them)

function parseSystem({ accounts, data }: ResolvedInstruction): ParsedBody | null {
  const reader = new Reader(data);
  const kind = reader.u32();
  switch (kind) {
    case 0: {
      if (accounts.length < 2 || data.length < 52) return null;
      const lamports = reader.u64();
      const space = reader.u64();
      const owner = reader.pubkey();
      return {
        type: "createAccount",
        info: { source: accounts[0], newAccount: accounts[1], lamports, space, owner },
      };
    }
    case 1:
      if (accounts.length < 1 || data.length < 36) return null;
      return { type: "assign", info: { account: accounts[0], owner: reader.pubkey() } };
    case 2:
      if (accounts.length < 2 || data.length < 12) return null;
      return { type: "transfer", info: { source: accounts[0], destination: accounts[1], lamports: reader.u64() } };
    case 4:
      if (accounts.length < 3 || data.length < 4) return null;
      return {
        type: "advanceNonce",
        info: { nonceAccount: accounts[0], recentBlockhashesSysvar: accounts[1], nonceAuthority: accounts[2] },
      };
    case 8:
      if (accounts.length < 1 || data.length < 12) return null;
      return { type: "allocate", info: { account: accounts[0], space: reader.u64() } };
    default:
      return null;
  }
}

// -------------------------------------------------------------------------------------------------
// SPL Token / Token-2022 (u8 discriminator)

function parseToken({ accounts, data }: ResolvedInstruction): ParsedBody | null {
  if (data.length === 0) return null;
  const reader = new Reader(data, 1);
  // Trailing bytes are ignored, as the token program's own unpacking ignores them.
  const need = (count: number, length: number) => accounts.length >= count && data.length >= length;
  switch (data[0]) {
    case 3: // Transfer
      if (!need(3, 9)) return null;
      return token(
        "transfer",
        { source: accounts[0], destination: accounts[1], amount: String(reader.u64()) },
        accounts,
        2,
        "authority",
      );
    case 4: // Approve
      if (!need(3, 9)) return null;
      return token(
        "approve",
        { source: accounts[0], delegate: accounts[1], amount: String(reader.u64()) },
        accounts,
        2,
        "owner",
      );
    case 5: // Revoke
      if (!need(2, 1)) return null;
      return token("revoke", { source: accounts[0] }, accounts, 1, "owner");
    case 7: // MintTo
      if (!need(3, 9)) return null;
      return token(
        "mintTo",
        { mint: accounts[0], account: accounts[1], amount: String(reader.u64()) },
        accounts,
        2,
        "mintAuthority",
      );
    case 8: // Burn
      if (!need(3, 9)) return null;
      return token(
        "burn",
        { account: accounts[0], mint: accounts[1], amount: String(reader.u64()) },
        accounts,
        2,
        "authority",
      );
    case 9: // CloseAccount
      if (!need(3, 1)) return null;
      return token("closeAccount", { account: accounts[0], destination: accounts[1] }, accounts, 2, "owner");
    case 10: // FreezeAccount
      if (!need(3, 1)) return null;
      return token("freezeAccount", { account: accounts[0], mint: accounts[1] }, accounts, 2, "freezeAuthority");
    case 11: // ThawAccount
      if (!need(3, 1)) return null;
      return token("thawAccount", { account: accounts[0], mint: accounts[1] }, accounts, 2, "freezeAuthority");
    case 12: {
      if (!need(4, 10)) return null;
      const amount = reader.u64();
      const info = {
        source: accounts[0],
        mint: accounts[1],
        destination: accounts[2],
        tokenAmount: uiTokenAmount(amount, reader.u8()),
      };
      return token("transferChecked", info, accounts, 3, "authority");
    }
    case 13: {
      if (!need(4, 10)) return null;
      const amount = reader.u64();
      const info = {
        source: accounts[0],
        mint: accounts[1],
        delegate: accounts[2],
        tokenAmount: uiTokenAmount(amount, reader.u8()),
      };
      return token("approveChecked", info, accounts, 3, "owner");
    }
    case 14: {
      if (!need(3, 10)) return null;
      const amount = reader.u64();
      const info = { mint: accounts[0], account: accounts[1], tokenAmount: uiTokenAmount(amount, reader.u8()) };
      return token("mintToChecked", info, accounts, 2, "mintAuthority");
    }
    case 15: {
      if (!need(3, 10)) return null;
      const amount = reader.u64();
      const info = { account: accounts[0], mint: accounts[1], tokenAmount: uiTokenAmount(amount, reader.u8()) };
      return token("burnChecked", info, accounts, 2, "authority");
    }
    case 17: // SyncNative
      if (!need(1, 1)) return null;
      return { type: "syncNative", info: { account: accounts[0] } };
    case 18: // InitializeAccount3
      if (!need(2, 33)) return null;
      return { type: "initializeAccount3", info: { account: accounts[0], mint: accounts[1], owner: reader.pubkey() } };
    case 21: // GetAccountDataSize (no extension types)
      if (!need(1, 1)) return null;
      return { type: "getAccountDataSize", info: { mint: accounts[0] } };
    case 22: // InitializeImmutableOwner
      if (!need(1, 1)) return null;
      return { type: "initializeImmutableOwner", info: { account: accounts[0] } };
    default:
      return null;
  }
}

/**
 * Agave's parse_signers: the authority is the account after the last non-signer; when more accounts follow, it is a
 * multisig (`multisig<Field>` plus `signers`).
 */
function token(
  type: string,
  info: Info,
  accounts: readonly string[],
  authorityIndex: number,
  field: string,
): ParsedBody {
  if (accounts.length > authorityIndex + 1) {
    info[`multisig${field[0]!.toUpperCase()}${field.slice(1)}`] = accounts[authorityIndex];
    info.signers = accounts.slice(authorityIndex + 1);
  } else {
    info[field] = accounts[authorityIndex];
  }
  return { type, info };
}

/** UiTokenAmount: raw amount as a string, decimals, the float and its trimmed decimal string. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  const uiAmountString = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  return { uiAmount: Number(uiAmountString), decimals, amount: amount.toString(), uiAmountString };
}

// -------------------------------------------------------------------------------------------------
// Associated Token Account

function parseAssociated({ accounts, data }: ResolvedInstruction): ParsedBody | null {
  const kind = data.length === 0 ? 0 : data.length === 1 ? data[0] : -1;
  if ((kind !== 0 && kind !== 1) || accounts.length < 6) return null;
  return {
    type: kind === 0 ? "create" : "createIdempotent",
    info: {
      source: accounts[0],
      account: accounts[1],
      wallet: accounts[2],
      mint: accounts[3],
      systemProgram: accounts[4],
      tokenProgram: accounts[5],
    },
  };
}

class Reader {
  private readonly view: DataView;
  constructor(
    private readonly data: Uint8Array,
    private offset = 0,
  ) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }
  u8(): number {
    return this.view.getUint8(this.offset++);
  }
  u32(): number {
    if (this.offset + 4 > this.data.length) return -1;
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }
  u64(): bigint {
    const value = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return value;
  }
  pubkey(): string {
    const value = toBase58(this.data.subarray(this.offset, this.offset + 32));
    this.offset += 32;
    return value;
  }
}
