import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { railNotEnabled } from "../../platform/config/rail-switches";
import type { RailSellerRegistration } from "../seller-view";
import { readActivation, readWalletActivation } from "./seller-activation";
import { deriveExactAddresses } from "./seller-view";
import { requireUniversalSettle } from "./universal-settle-program";

/**
 * A seller registers to be paid through the exact rail, in one of its `payTo` forms: "vault" (its UniversalSettle
 * vault, activated by POST /sellers/provision-tx) or "wallet" (its own wallet's token account, SVC_EXACT_WALLET_PAYTO).
 */
export const exactSellerRegistration: RailSellerRegistration = {
  // The vault where it runs (as it always was), else the wallet.
  defaultForm(config) {
    const { exactVault, exactWallet } = config.rails;
    return exactVault.enabled ? "vault" : exactWallet.enabled ? "wallet" : "vault";
  },
  requireForm(config, form) {
    if (form === "wallet" && !config.rails.exactWallet.enabled)
      throw railNotEnabled("exact (wallet payTo)", config.rails.exactWallet.why);
    if (form === "vault") requireUniversalSettle(config);
  },
  // The vault form checks the vault (and its token account); the wallet form the wallet's own token account.
  async activation(config, wallet, asset, form) {
    if (form === "vault") return readActivation(config, wallet, asset);
    return { vaultPda: null, missing: await readWalletActivation(config, wallet, asset) };
  },
  notActivatedMessage: (form, wallet, missing) =>
    form === "vault"
      ? `Activation has not landed on ` +
        `chain: ${missing}. Send the transaction from POST /sellers/provision-tx, wait for confirmation, then ` +
        `register again`
      : `The wallet payTo form needs the token account payments land ` +
        `in: ${missing}. Create it (the associated token account ` +
        `of ${wallet} for the mint; this facilitator never creates it), then register again`,
};

/** The seller's vault, where payments to its vault form land (none without a UniversalSettle program). */
export async function exactPaidAddresses(config: Config, wallet: Address): Promise<readonly Address[]> {
  return config.programs.universalSettle === null ? [] : [(await deriveExactAddresses(config, wallet)).vaultPda];
}
