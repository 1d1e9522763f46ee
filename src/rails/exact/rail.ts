import {
  paymentFeeOf,
  paymentSpendRefusal,
  priorityFeeOf,
  sponsorshipPolicy,
} from "../../chain/fee-payer-budget/payment-spend";
import type { Rail } from "../rail";
import { justInTimeRefusal } from "./just-in-time-refusal";
import { DEFAULT_FEE_BPS, DEFAULT_SOVEREIGN_FEE_BPS, getUniversalSettleFacts } from "./program-facts";
import { settleExactPayment } from "./settle";
import { verifyExactPayment } from "./verify";
import { walletLineExtra } from "./wallet-line";

/** Default minimum fees when the Config account cannot be read: 1 cent of USDC, 0.0001 SOL. */
const FALLBACK_MIN_FEE_RAW = 10_000n;
const FALLBACK_MIN_FEE_LAMPORTS = 100_000n;

/**
 * The `exact` rail as discovery advertises it (docs/wire-notes.md "Discovery shapes": exact `extra`, numbers as decimal
 * strings). `payToForms` says which `payTo` it takes here: `vault` (the seller's UniversalSettle vault, with the
 * program's fee figures) and/or `wallet` (the seller's own wallet, as the official facilitator settles it).
 */
export const exactRail = {
  scheme: "exact",
  /**
   * verifyExactPayment, and (with the ledger) what the settle would book: the payment's fee under the exposure budget's
   * caps (one D1 read, only for a priority fee above the one /verify looks at) and, for a vault to create first, the
   * just-in-time provisioning's limits (./just-in-time-refusal.ts).
   */
  async verify(config, body, accepted, options) {
    const verified = await verifyExactPayment(config, body, accepted, options);
    if (!verified.ok || !options.db) return verified;
    const spend = {
      rail: "exact",
      kind: "payment_fee",
      messageHash: verified.messageHash,
      payer: verified.payer,
      seller: verified.merchantWallet,
      lamports: paymentFeeOf(verified.tx),
    } as const;
    const [fee, vault] = await Promise.all([
      paymentSpendRefusal(config, options.db, spend, priorityFeeOf(verified.tx)),
      verified.form === "vault" && verified.needsProvisioning ? justInTimeRefusal(config, options.db, verified) : null,
    ]);
    return fee ?? vault ?? verified;
  },
  settle: settleExactPayment,
  async supportedExtra(config) {
    const { exactVault, exactWallet } = config.rails;
    if (!exactVault.enabled && !exactWallet.enabled) return null;
    const payToForms = [...(exactVault.enabled ? ["vault"] : []), ...(exactWallet.enabled ? ["wallet"] : [])];
    // As the official facilitator says it: smart-wallet buyers are verified by what their transaction does.
    const features = config.exactSmartWallet.enabled ? { features: { smartWalletSupported: true } } : {};
    // What the fee payer sponsors and its caps, for a client to read before it meets one (docs/money-rules.md).
    const sponsorship = sponsorshipPolicy(config);
    const common = { ...walletLineExtra(config), payToForms, ...features, sponsorship };
    if (!exactVault.enabled) return common;
    const facts = await getUniversalSettleFacts(config);
    const onChain = facts.onChainConfig;
    return {
      feePayer: common.feePayer,
      programId: facts.programId,
      configAddress: facts.configAddress,
      feeBps: String(onChain?.feeBps ?? DEFAULT_FEE_BPS),
      // The rate of a vault the seller activated itself (sovereign), so every page words both rates from one place.
      sovereignFeeBps: String(onChain?.discountedFeeBps ?? DEFAULT_SOVEREIGN_FEE_BPS),
      minFeeAmount: String(onChain?.minFeeAmountRaw ?? FALLBACK_MIN_FEE_RAW),
      minFeeAmountSol: String(onChain?.minFeeAmountLamports ?? FALLBACK_MIN_FEE_LAMPORTS),
      maxComputeUnitLimit: common.maxComputeUnitLimit,
      recommendedComputeUnitPrice: common.recommendedComputeUnitPrice,
      merchantWallet: null,
      beneficiary: null,
      payToForms,
      ...features,
      sponsorship,
    };
  },
} satisfies Rail;
