import type { Config } from "../../platform/config/load-config";
import { refused } from "../../platform/errors/catalogue";
import { getUniversalSettleFacts } from "./program-facts";

/**
 * Used only while the on-chain Config cannot be read: the program's documented minimum fees (docs/facilitator-spec.md
 * §8).
 */
const FALLBACK_MIN_FEE_RAW = 10_000n; // 1 cent of a 6-decimal stablecoin
const FALLBACK_MIN_FEE_LAMPORTS = 100_000n;

/**
 * The smallest payment the facilitator will pay a network fee for. Below the program's minimum fee the seller
 * receives nothing, so a smaller payment only costs the fee payer. An operator may set a floor per mint
 * (`SVC_MIN_PAYMENT_RAW_BY_MINT`); otherwise the UniversalSettle Config's `min_fee_amount` (SPL) or
 * `min_fee_amount_sol` (SOL) applies.
 */
export async function minimumPaymentRaw(config: Config, asset: string, isNativeSol: boolean): Promise<bigint> {
  const configured = Object.hasOwn(config.limits.minPaymentRawByMint, asset)
    ? config.limits.minPaymentRawByMint[asset]
    : undefined;
  if (configured !== undefined) return configured;
  // Without a UniversalSettle program (wallet payTo only) the documented minimum fees are the floor.
  const { onChainConfig } = config.programs.universalSettle
    ? await getUniversalSettleFacts(config)
    : { onChainConfig: null };
  if (isNativeSol) return onChainConfig?.minFeeAmountLamports ?? FALLBACK_MIN_FEE_LAMPORTS;
  return onChainConfig?.minFeeAmountRaw ?? FALLBACK_MIN_FEE_RAW;
}

/** The reason every route refuses an exact payment below the minimum with: the one `/verify` answers. */
export const EXACT_BELOW_MINIMUM_REASON = "invalid_exact_svm_payload_amount_below_minimum";

/** The sentence of that refusal, the same on enrich, the builder, `/fee-quote` and `/verify`. */
export function exactBelowMinimumMessage(amount: bigint, minimum: bigint, asset: string): string {
  return (
    `amount ${amount} is below this facilitator's minimum ` +
    `of ${minimum} raw units for ${asset} (below the program's minimum fee the seller would receive nothing)`
  );
}

/**
 * The refusal of an exact amount below the minimum, for the routes that answer before a payment exists (enrich, the
 * builder, `/fee-quote`): `field` names where the amount was read; `minimumAmount` carries the number.
 */
export async function refuseBelowExactMinimum(
  config: Config,
  field: string,
  amount: bigint,
  asset: string,
  isNativeSol: boolean,
): Promise<void> {
  const minimum = await minimumPaymentRaw(config, asset, isNativeSol);
  if (amount < minimum) {
    throw refused(EXACT_BELOW_MINIMUM_REASON, `${field}: ${exactBelowMinimumMessage(amount, minimum, asset)}`, {
      minimumAmount: minimum.toString(),
    });
  }
}
