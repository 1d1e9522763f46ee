import type { Config } from "../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../platform/config/networks";
import { log } from "../platform/observability/log";

/**
 * The payment-mint allowlist (docs/facilitator-spec.md §8 `SVC_ALLOWED_PAYMENT_MINTS`). The rejection text is the same
 * on build, verify and settle (docs/facilitator-spec.md §7 rule 1), so it is produced in exactly one place.
 */
export function assetNotAllowedMessage(config: Config, asset: string): string | null {
  const allowed = config.allowedPaymentMints;
  if (allowed.length === 0) {
    warnOnceAboutOpenAllowlist();
    return null;
  }
  if (allowed.includes(asset as (typeof allowed)[number])) return null;
  const named = allowed.map((mint) => (mint === NATIVE_SOL_ALLOWLIST_ADDRESS ? `${mint} (native SOL)` : mint));
  return `Asset ${asset} is not supported by this facilitator. Approved assets: ${named.join(", ")}`;
}

let warned = false;
function warnOnceAboutOpenAllowlist(): void {
  if (warned) return;
  warned = true;
  log("warn", "mint_allowlist_empty", { message: "SVC_ALLOWED_PAYMENT_MINTS is empty: every mint is permitted" });
}
