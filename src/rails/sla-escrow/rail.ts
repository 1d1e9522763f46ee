import type { Config } from "../../platform/config/load-config";
import type { Rail } from "../rail";
import { ESCROW_FUND_COMPUTE_UNIT_LIMIT } from "./build-payment";
import { getSlaEscrowFacts } from "./escrow-facts";
import { settleEscrowPayment } from "./settle";
import { verifyEscrowPayment } from "./verify";

/** The ttl a seller's line gets by default: an hour, or the delivery cutoff plus budget when that is longer. */
const DEFAULT_TTL_SECONDS = 3_600n;

/**
 * The `sla-escrow` rail. It is served when the SLA-Escrow program's Bank, Config and the USDC Escrow exist on this
 * cluster; fee figures are the USDC escrow's (each mint's escrow carries its own, read by the builder and verify).
 */
export const slaEscrowRail = {
  scheme: "sla-escrow",
  verify: verifyEscrowPayment,
  settle: settleEscrowPayment,
  async supportedExtra(config: Config) {
    const facts = await getSlaEscrowFacts(config, config.mints.usdc).catch(() => null);
    if (!facts?.bankAccount || !facts.escrowConfig || !facts.escrowAccount) return null;
    const cutoff = facts.escrowConfig.deliveryCutoffSeconds;
    const budget = BigInt(config.slaEscrow.deliveryBudgetSeconds);
    const ttl = cutoff + budget > DEFAULT_TTL_SECONDS ? cutoff + budget : DEFAULT_TTL_SECONDS;
    return {
      feePayer: config.feePayer.address,
      bankAddress: facts.bank,
      configAddress: facts.configAddress,
      escrowProgramId: facts.programId,
      feeBps: String(facts.escrowAccount.feeBps),
      oracleFeeBps: String(facts.escrowAccount.oracleFeeBps),
      // The fee's floor in the USDC escrow's raw units, as exact's minFeeAmount: a small price pays more than feeBps.
      minFeeAmount: String(facts.escrowAccount.minFeeAmount),
      oracleAuthorities: [...config.slaEscrow.oracleAuthorities],
      deliveryCutoffSeconds: String(cutoff),
      deliveryBudgetSeconds: String(budget),
      ttlSeconds: String(ttl),
      maxComputeUnitLimit: String(Math.min(ESCROW_FUND_COMPUTE_UNIT_LIMIT, config.compute.maxUnitLimit)),
      recommendedComputeUnitPrice: String(config.compute.recommendedUnitPriceMicroLamports),
      slaFundTxNetworkFeePayer: "buyer",
      merchantWallet: null,
      beneficiary: null,
      // payTo is the mint's Escrow PDA under this facilitator's bank (docs/facilitator-spec.md §1 rule 1).
      payToForms: ["escrow"],
    };
  },
} satisfies Rail;
