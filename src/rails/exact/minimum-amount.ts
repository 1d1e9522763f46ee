import type { Config } from "../../platform/config/load-config";
import { getUniversalSettleFacts } from "./program-facts";

/** Used only while the on-chain Config cannot be read: the program's documented minimum fees (docs/facilitator-spec.md §8). */
const FALLBACK_MIN_FEE_RAW = 10_000n; // 1 cent of a 6-decimal stablecoin
const FALLBACK_MIN_FEE_LAMPORTS = 100_000n;

/**
 * The smallest payment the facilitator will pay a network fee for. Below the program's minimum fee the seller
 * receives nothing, so a smaller payment only costs the fee payer. An operator may set a floor per mint
 * (`SVC_MIN_PAYMENT_RAW_BY_MINT`); otherwise the UniversalSettle Config's `min_fee_amount` (SPL) or
 * `min_fee_amount_sol` (SOL) applies.
 */
export async function minimumPaymentRaw(config: Config, asset: string, isNativeSol: boolean): Promise<bigint> {
  const configured = Object.hasOwn(config.limits.minPaymentRawByMint, asset) ? config.limits.minPaymentRawByMint[asset] : undefined;
  if (configured !== undefined) return configured;
  const { onChainConfig } = await getUniversalSettleFacts(config);
  if (isNativeSol) return onChainConfig?.minFeeAmountLamports ?? FALLBACK_MIN_FEE_LAMPORTS;
  return onChainConfig?.minFeeAmountRaw ?? FALLBACK_MIN_FEE_RAW;
}
