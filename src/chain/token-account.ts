import type { Address } from "@solana/kit";
import { AccountState, getTokenDecoder, getTokenSize } from "@solana-program/token";
import type { AccountSnapshot } from "./accounts";

/**
 * Token accounts read with the official decoder (@solana-program/token), in one place: an SPL Token account, or the
 * base of a Token-2022 account (its first 165 bytes; the account type and extensions follow).
 */
export const TOKEN_ACCOUNT_SIZE = getTokenSize();

export type TokenAccountState = "uninitialized" | "initialized" | "frozen";

export interface TokenAccountFacts {
  mint: Address;
  owner: Address;
  amount: bigint;
  state: TokenAccountState;
}

const STATES: Record<AccountState, TokenAccountState> = {
  [AccountState.Uninitialized]: "uninitialized",
  [AccountState.Initialized]: "initialized",
  [AccountState.Frozen]: "frozen",
};

const decoder = getTokenDecoder();

/** The base token account in `data`, or null when `data` is too short (or malformed) to hold one. */
export function readTokenAccount(data: Uint8Array): TokenAccountFacts | null {
  if (data.length < TOKEN_ACCOUNT_SIZE) return null;
  try {
    const { mint, owner, amount, state } = decoder.decode(data.subarray(0, TOKEN_ACCOUNT_SIZE));
    return { mint, owner, amount, state: STATES[state] ?? "uninitialized" };
  } catch {
    return null;
  }
}

/**
 * What a buyer's token account can send, the one reading builders and verify share: its state and balance, or null
 * when `account` is not a token account of `tokenProgram`. Each caller words its own refusal (a builder throws a
 * 400 before the buyer signs; verify answers an x402 rejection).
 */
export function readTokenSource(
  account: AccountSnapshot,
  tokenProgram: Address,
): { state: TokenAccountState; balance: bigint } | null {
  if (account.owner !== tokenProgram) return null;
  const token = readTokenAccount(account.data);
  return token && { state: token.state, balance: token.amount };
}
