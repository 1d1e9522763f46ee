import { type Address, address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { isBase58Address } from "../../chain/base58";
import type { Config } from "../../platform/config/load-config";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import { decodeSplitVault } from "./program/accounts";

/** A vault's seller never changes, so it is remembered per isolate once read from chain. */
const MAX_ENTRIES = 20_000;
const sellersByVault = new Map<string, Address>();

/**
 * The seller behind an `exact` line: `extra.merchantWallet` when given; otherwise the seller recorded in the
 * SplitVault account at `payTo` (the official seller middleware sends only `payTo`). Only a vault that does not
 * exist yet needs `merchantWallet`, since nothing on chain names its seller.
 */
export async function resolveMerchantWallet(
  config: Config,
  payTo: string,
  merchantWallet: unknown,
): Promise<{ ok: true; wallet: Address } | PaymentRejection> {
  if (typeof merchantWallet === "string" && isBase58Address(merchantWallet))
    return { ok: true, wallet: merchantWallet as Address };
  if (merchantWallet !== undefined && merchantWallet !== null) {
    return rejection(
      "invalid_exact_svm_payload_missing_merchant_wallet",
      "extra.merchantWallet must be the seller's base58 wallet address",
    );
  }
  const known = sellersByVault.get(payTo);
  if (known) return { ok: true, wallet: known };
  const vault = (await fetchAccounts(config, [address(payTo)])).get(address(payTo));
  const decoded = vault && vault.owner === config.programs.universalSettle ? decodeSplitVault(vault.data) : null;
  if (!decoded) {
    return rejection(
      "invalid_exact_svm_payload_missing_merchant_wallet",
      `payTo ${payTo} is not an existing UniversalSettle vault (a seller that has not activated it?), so nothing ` +
        `names its seller: ` +
        "the seller activates the vault (POST /sellers/provision-tx, then GET /sellers/{wallet}/rails/exact gives " +
        "the payTo), " +
        "or the 402 line carries extra.merchantWallet (POST /payment-required/enrich adds it)",
    );
  }
  if (sellersByVault.size >= MAX_ENTRIES) sellersByVault.clear();
  sellersByVault.set(payTo, decoded.seller);
  return { ok: true, wallet: decoded.seller };
}
