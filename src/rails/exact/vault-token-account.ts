import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../../chain/accounts";
import { readTokenAccount } from "../../chain/token-account";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
/**
 * SPL token account layout: mint @0, owner @32, amount @64, state u8 @108 (0 uninitialized, 1 initialized, 2 frozen).
 */

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
  const token = account.owner === expected.tokenProgram ? readTokenAccount(account.data) : null;
  if (token === null || token.state !== "initialized") return "squatted";
  return token.mint === expected.mint && token.owner === expected.owner ? "ready" : "squatted";
}
