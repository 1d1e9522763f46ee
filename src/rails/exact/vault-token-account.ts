import { getAddressDecoder, type Address } from "@solana/kit";
import type { AccountSnapshot } from "../../chain/accounts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
/** SPL token account layout: mint @0, owner @32, amount @64, state u8 @108 (0 uninitialized, 1 initialized, 2 frozen). */
const TOKEN_ACCOUNT_MIN_BYTES = 165;
const INITIALIZED = 1;
const addressDecoder = getAddressDecoder();

export type VaultTokenAccountState = "ready" | "missing" | "squatted";

/**
 * What sits at a vault's associated token account address. Anyone can send lamports to that address, so "an
 * account exists" proves nothing: it is ready only as an initialized token account of the right program, mint
 * and owner. Bare lamports (System-owned, no data) still count as missing, because the Associated Token program
 * creates the account over them; anything else can never receive the payment and is reported as squatted.
 */
export function classifyVaultTokenAccount(
  account: AccountSnapshot | null | undefined,
  expected: { tokenProgram: Address; mint: string; owner: string },
): VaultTokenAccountState {
  if (!account) return "missing";
  if (account.owner === SYSTEM_PROGRAM && account.data.length === 0) return "missing";
  if (account.owner !== expected.tokenProgram || account.data.length < TOKEN_ACCOUNT_MIN_BYTES) return "squatted";
  if (account.data[108] !== INITIALIZED) return "squatted";
  const mint = addressDecoder.decode(account.data.subarray(0, 32));
  const owner = addressDecoder.decode(account.data.subarray(32, 64));
  return mint === expected.mint && owner === expected.owner ? "ready" : "squatted";
}
