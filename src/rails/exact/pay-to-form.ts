import type { Address } from "@solana/kit";
import { isOffCurve } from "../../chain/off-curve";
import type { Config } from "../../platform/config/load-config";
import type { RailSwitch } from "../../platform/config/rail-switches";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import { resolveMerchantWallet } from "./vault-seller";

/**
 * Which `payTo` an `exact` line pays, decided before the transaction is read:
 * - `vault`: the seller's UniversalSettle vault (docs/facilitator-spec.md §1 rule 1), named by `extra.merchantWallet`
 *   or read from the SplitVault account at `payTo`;
 * - `wallet`: the seller's own wallet, whose associated token account for the mint receives the transfer, as the
 *   official `@x402/svm` exact facilitator settles it (only where the operator turned SVC_EXACT_WALLET_PAYTO on).
 * Without `merchantWallet`, an on-curve `payTo` is a wallet (a vault is a PDA, off the curve) and costs no chain read;
 * an off-curve one is read as a vault while the vault form runs (so a vault not created yet is still named as such),
 * and is a wallet (e.g. a multisig's PDA) only where the vault form is off.
 */
export type PayToForm =
  | { kind: "vault"; programId: Address; merchantWallet: Address }
  | { kind: "wallet"; owner: Address };

export async function resolvePayToForm(
  config: Config,
  payTo: Address,
  merchantWallet: unknown,
): Promise<{ ok: true; form: PayToForm } | PaymentRejection> {
  const { exactVault, exactWallet } = config.rails;
  const programId = config.programs.universalSettle;
  const named = merchantWallet !== undefined && merchantWallet !== null;
  // Only an unnamed payTo needs the curve check (the costliest step of a /verify that makes it): a named line skips it.
  const offCurve = named ? null : isOffCurve(payTo);
  if (offCurve !== null && exactWallet.enabled && (!offCurve || programId === null))
    return { ok: true, form: { kind: "wallet", owner: payTo } };
  if (programId === null) {
    // A vault line, or any line with both forms off.
    const why = named ? whyOff(exactVault) : `${whyOff(exactVault)}; ${whyOff(exactWallet)}`;
    return rejection("rail_not_enabled", `The exact rail cannot pay this payTo on this deployment: ${why}`);
  }
  if (offCurve === false) {
    return rejection(
      "invalid_exact_svm_payload_missing_merchant_wallet",
      `payTo ${payTo} is a wallet, ` +
        `but ${whyOff(exactWallet)}; a vault payment needs extra.merchantWallet: enrich the 402 body with ` +
        `/payment-required/enrich`,
    );
  }
  const seller = await resolveMerchantWallet(config, payTo, merchantWallet);
  return seller.ok ? { ok: true, form: { kind: "vault", programId, merchantWallet: seller.wallet } } : seller;
}

function whyOff(setting: RailSwitch): string {
  return setting.enabled ? "it is not configured" : setting.why;
}
