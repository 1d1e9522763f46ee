import type { Address } from "@solana/kit";
import { type AccountSnapshot, fetchAccounts } from "../../chain/accounts";
import type { Config } from "../../platform/config/load-config";
import type { Refusal } from "../../x402/payment-verdict";
import { classifyVaultTokenAccount } from "./vault-token-account";

/**
 * A wallet `payTo` is paid into its associated token account for the mint, which must already exist: the facilitator
 * creates nothing for a wallet payTo (as the official exact facilitator). Without this rule the chain refuses the
 * transfer with a bare `InvalidAccountData`, which tells the seller nothing it can act on.
 */
export interface RecipientTokenAccount {
  /** payTo's associated token account for the mint under the transfer's token program. */
  address: Address;
  owner: Address;
  mint: Address;
  tokenProgram: Address;
}

/** The refusal of a recipient whose token account is missing (bare lamports count as missing), or null. */
export function missingRecipientAccount(
  account: AccountSnapshot | null | undefined,
  recipient: RecipientTokenAccount,
): (Refusal & { reason: "invalid_exact_svm_payload_recipient_token_account_missing" }) | null {
  const state = classifyVaultTokenAccount(account, {
    tokenProgram: recipient.tokenProgram,
    mint: recipient.mint,
    owner: recipient.owner,
  });
  if (state !== "missing") return null;
  return {
    reason: "invalid_exact_svm_payload_recipient_token_account_missing",
    message:
      `payTo ${recipient.owner} has no token account for mint ${recipient.mint}: its associated token account ` +
      `${recipient.address} does not exist, and the facilitator creates none for a wallet payTo; the seller must ` +
      `create ` +
      "it before it can be paid",
  };
}

/**
 * After the chain refused a payment (simulation, preflight) whose recipient was not read before: one read of the
 * recipient's token account, so a missing one is named. Only failed payments pay for it; a successful one reads
 * nothing. When that read fails, null: the chain's refusal is answered as it was.
 */
export async function explainMissingRecipientAccount(
  config: Config,
  recipient: RecipientTokenAccount,
): Promise<ReturnType<typeof missingRecipientAccount>> {
  try {
    const accounts = await fetchAccounts(config, [recipient.address]);
    return missingRecipientAccount(accounts.get(recipient.address), recipient);
  } catch {
    return null;
  }
}
