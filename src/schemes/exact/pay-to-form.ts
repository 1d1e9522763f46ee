import { isOffCurveAddress, type Address } from "@solana/kit";
import type { Config } from "../../config/load-config";
import { rejection, type PaymentRejection } from "../../x402/payment-verdict";
import { resolveMerchantWallet } from "./vault-seller";

/**
 * Which `payTo` an `exact` line pays, decided before the transaction is read:
 * - `vault`: the seller's UniversalSettle vault (docs/facilitator-spec.md §1 rule 1), named by `extra.merchantWallet`
 *   or read from the SplitVault account at `payTo`;
 * - `wallet`: the seller's own wallet, whose associated token account for the mint receives the transfer, as the
 *   official `@x402/svm` exact facilitator settles it (only where the operator turned SVC_EXACT_WALLET_PAYTO on).
 * An on-curve `payTo` without `merchantWallet` is a wallet without any chain read (a vault is a PDA, off the curve);
 * only an off-curve one costs the (cached) vault read, and is a wallet when no vault of ours is there.
 */
export type PayToForm = { kind: "vault"; programId: Address; merchantWallet: Address } | { kind: "wallet"; owner: Address };

export async function resolvePayToForm(config: Config, payTo: Address, merchantWallet: unknown): Promise<{ ok: true; form: PayToForm } | PaymentRejection> {
  const { exactVault, exactWallet } = config.rails;
  const programId = config.programs.universalSettle;
  const named = merchantWallet !== undefined && merchantWallet !== null;
  // A vault line: named by merchantWallet, or any line while only the vault form runs.
  if (named || (!exactWallet.enabled && programId !== null)) {
    if (programId === null) return rejection("rail_not_enabled", `extra.merchantWallet names a vault payment, but ${exactVault.enabled ? "no UniversalSettle program is configured" : exactVault.why}`);
    if (!named && !isOffCurveAddress(payTo)) {
      return rejection(
        "invalid_exact_svm_payload_missing_merchant_wallet",
        `payTo ${payTo} is a wallet, but ${exactWallet.enabled ? "" : exactWallet.why}; a vault payment needs extra.merchantWallet: enrich the 402 body with /payment-required/enrich`,
      );
    }
    const seller = await resolveMerchantWallet(config, payTo, merchantWallet);
    return seller.ok ? { ok: true, form: { kind: "vault", programId, merchantWallet: seller.wallet } } : seller;
  }
  if (!exactWallet.enabled) return rejection("rail_not_enabled", `The exact rail is not enabled on this deployment: ${exactVault.enabled ? exactWallet.why : exactVault.why}`);
  if (programId !== null && isOffCurveAddress(payTo)) {
    // Perhaps an existing vault of ours (the official middleware sends the vault without merchantWallet).
    const seller = await resolveMerchantWallet(config, payTo, undefined);
    if (seller.ok) return { ok: true, form: { kind: "vault", programId, merchantWallet: seller.wallet } };
  }
  return { ok: true, form: { kind: "wallet", owner: payTo } };
}
