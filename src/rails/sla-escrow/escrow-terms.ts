import { type Address, isAddress } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import type { Refusal, RejectionReason } from "../../x402/payment-verdict";
import type { PaymentRequirements } from "../../x402/schemas";
import { getSlaEscrowFacts, type SlaEscrowFacts } from "./escrow-facts";
import type { Bank, Escrow, EscrowConfig } from "./program/accounts";
import { MAX_PAYMENT_TTL_SECONDS, MIN_PAYMENT_TTL_SECONDS } from "./program/instructions";

/**
 * The terms of an `sla-escrow` line (docs/facilitator-spec.md §2.1, docs/sla-escrow-abi.md "Verification"), checked
 * before any transaction is read: the builder refuses a line that breaks them, and verify refuses a payment made
 * against one.
 */
export interface EscrowTerms {
  facts: SlaEscrowFacts;
  /** The on-chain seller of FundPayment: `extra.beneficiary`, else `extra.merchantWallet`. */
  seller: Address;
  /** SOL or an SPL mint (native SOL uses the all-zero address, which is also the allowlist's SOL address). */
  kind: "sol" | "spl";
  ttlSeconds: bigint;
  /**
   * Oracles the buyer may name: this facilitator's list, narrowed by the line's `extra.oracleAuthorities` when given.
   */
  oracleAuthorities: Address[];
}

/** The reasons a funding's limits are refused with; the builders list them in their OpenAPI reasons. */
export const ESCROW_AMOUNT_REASONS = [
  "invalid_sla_escrow_amount_out_of_range",
  "invalid_sla_escrow_amount_below_minimum",
] as const satisfies readonly RejectionReason[];
export const FUNDING_LIMIT_REASONS = [
  "invalid_sla_escrow_seller_is_escrow",
  "sla_escrow_paused",
  ...ESCROW_AMOUNT_REASONS,
  "invalid_sla_escrow_ttl",
] as const satisfies readonly RejectionReason[];
export type FundingViolationReason = (typeof FUNDING_LIMIT_REASONS)[number];

/** The reasons a line's terms are refused with. */
export const ESCROW_TERMS_REASONS = [
  ...FUNDING_LIMIT_REASONS,
  "invalid_sla_escrow_program_mismatch",
  "sla_escrow_not_configured",
  "invalid_sla_escrow_bank_mismatch",
  "invalid_sla_escrow_recipient_mismatch",
  "invalid_sla_escrow_missing_seller",
  "invalid_sla_escrow_oracle",
] as const satisfies readonly RejectionReason[];
export type EscrowTermsReason = (typeof ESCROW_TERMS_REASONS)[number];

export interface TermsRejection extends Refusal {
  ok: false;
  reason: EscrowTermsReason;
  /** The rail is not configured on this cluster (the builder answers 501). */
  notConfigured?: boolean;
  /** On an amount refusal: the escrow's limits (`escrowAmountLimits`), for the builder's answer. */
  amountLimits?: { minimumAmount: string; maximumAmount: string };
}

export async function checkEscrowTerms(
  config: Config,
  requirements: PaymentRequirements,
  amount: bigint,
): Promise<{ ok: true; terms: EscrowTerms } | TermsRejection> {
  const extra = requirements.extra;
  const programId = config.programs.slaEscrow;
  if (extra.escrowProgramId !== undefined && extra.escrowProgramId !== programId) {
    return refuse(
      "invalid_sla_escrow_program_mismatch",
      `extra.escrowProgramId ${String(extra.escrowProgramId)} is not this facilitator's SLA-Escrow ` +
        `program ${programId}`,
    );
  }
  const mint = requirements.asset as Address;
  const facts = await getSlaEscrowFacts(config, mint);
  if (!isEscrowConfigured(facts))
    return { ...refuse("sla_escrow_not_configured", notConfiguredMessage(facts, mint)), notConfigured: true };
  if (extra.bankAddress !== undefined && extra.bankAddress !== facts.bank) {
    return refuse(
      "invalid_sla_escrow_bank_mismatch",
      `extra.bankAddress ${String(extra.bankAddress)} is not this facilitator's bank ${facts.bank}`,
    );
  }
  if (requirements.payTo !== facts.escrow) {
    return refuse(
      "invalid_sla_escrow_recipient_mismatch",
      `payTo ${requirements.payTo} is not the Escrow PDA ${facts.escrow} of asset ${mint} and bank ${facts.bank}`,
    );
  }

  const named = extra.beneficiary ?? extra.merchantWallet;
  if (typeof named !== "string" || !isAddress(named)) {
    return refuse(
      "invalid_sla_escrow_missing_seller",
      "extra.beneficiary or extra.merchantWallet must name the seller's wallet (base58): it becomes FundPayment.seller",
    );
  }
  const ttlSeconds = BigInt(requirements.maxTimeoutSeconds);
  const funding = {
    seller: named as Address,
    mint,
    amount,
    ttlSeconds,
    deliveryCutoffSeconds: facts.escrowConfig.deliveryCutoffSeconds,
  };
  const violation = checkFundingLimits(facts, config, funding);
  if (violation !== null) {
    const rejection = refuse(violation.reason, lineMessage(violation, funding));
    return violation.term === "amount"
      ? { ...rejection, amountLimits: escrowAmountLimits(facts.escrowAccount) }
      : rejection;
  }

  const listed = Array.isArray(extra.oracleAuthorities)
    ? new Set(extra.oracleAuthorities.filter((key): key is string => typeof key === "string"))
    : null;
  const oracleAuthorities = config.slaEscrow.oracleAuthorities.filter((key) => listed === null || listed.has(key));
  if (oracleAuthorities.length === 0) {
    return refuse(
      "invalid_sla_escrow_oracle",
      "No oracle authority is both configured by this facilitator and listed in extra.oracleAuthorities; see " +
        "/supported",
    );
  }

  return {
    ok: true,
    terms: {
      facts,
      seller: named as Address,
      kind: mint === NATIVE_SOL_ALLOWLIST_ADDRESS ? "sol" : "spl",
      ttlSeconds,
      oracleAuthorities,
    },
  };
}

function refuse(reason: EscrowTermsReason, message: string): TermsRejection {
  return { ok: false, reason, message };
}

/** Facts of a mint whose Bank, Config and Escrow accounts all exist. */
export type ConfiguredEscrowFacts = SlaEscrowFacts & {
  bankAccount: Bank;
  escrowConfig: EscrowConfig;
  escrowAccount: Escrow;
};

export function isEscrowConfigured(facts: SlaEscrowFacts): facts is ConfiguredEscrowFacts {
  return facts.bankAccount !== null && facts.escrowConfig !== null && facts.escrowAccount !== null;
}

export function notConfiguredMessage(facts: SlaEscrowFacts, mint: Address): string {
  return (
    `The SLA-Escrow rail is not configured for ` +
    `asset ${mint} on this cluster (program ${facts.programId}: bank, config or escrow account missing)`
  );
}

/** What one funding (FundPayment or FundPaymentV2) asks of the escrow. */
export interface FundingTerms {
  seller: Address;
  mint: Address;
  amount: bigint;
  ttlSeconds: bigint;
  /** The Config's delivery cutoff, or a FundPaymentV2 override of it. */
  deliveryCutoffSeconds: bigint;
}

/**
 * A funding term the escrow or this facilitator would refuse. `rule` is worded to follow the term (its value where
 * it has one), so the x402 line and the v2 builder body, which name the terms differently, say the same thing.
 */
export interface FundingViolation {
  reason: FundingViolationReason;
  term: "seller" | "escrow" | "amount" | "ttl";
  rule: string;
}

/** The limits both funding builders and verify enforce, in the program's own order of checks. */
export function checkFundingLimits(
  facts: ConfiguredEscrowFacts,
  config: Config,
  funding: FundingTerms,
): FundingViolation | null {
  const { amount, ttlSeconds } = funding;
  const escrow = facts.escrowAccount;
  if (funding.seller === facts.escrow) {
    return {
      reason: "invalid_sla_escrow_seller_is_escrow",
      term: "seller",
      rule: "must be the seller's wallet, not the Escrow PDA",
    };
  }
  if (escrow.paused)
    return { reason: "sla_escrow_paused", term: "escrow", rule: "is paused by its operator; try again later" };
  const amountViolation = escrowAmountViolation(escrow, funding.mint, amount);
  if (amountViolation !== null) return amountViolation;
  const floor = funding.deliveryCutoffSeconds + BigInt(config.slaEscrow.deliveryBudgetSeconds);
  if (ttlSeconds < MIN_PAYMENT_TTL_SECONDS || ttlSeconds > MAX_PAYMENT_TTL_SECONDS || ttlSeconds < floor) {
    return {
      reason: "invalid_sla_escrow_ttl",
      term: "ttl",
      rule:
        `must lie in ` +
        `[${MIN_PAYMENT_TTL_SECONDS}, ${MAX_PAYMENT_TTL_SECONDS}] and cover the delivery cutoff plus the delivery ` +
        `budget (${floor} s)`,
    };
  }
  return null;
}

/**
 * The escrow's amount limits (the program's range, then its minimum fee, below which the seller would receive nothing),
 * worded as `checkFundingLimits` words every term. Enrich, both funding builders, `/fee-quote` and `/verify` refuse an
 * amount with this reason and rule.
 */
export function escrowAmountViolation(
  escrow: Escrow,
  mint: Address,
  amount: bigint,
): (FundingViolation & { reason: (typeof ESCROW_AMOUNT_REASONS)[number] }) | null {
  if (amount < escrow.minPaymentAmount || amount > escrow.maxPaymentAmount) {
    return {
      reason: "invalid_sla_escrow_amount_out_of_range",
      term: "amount",
      rule:
        `is outside the escrow's range ` +
        `[${escrow.minPaymentAmount}, ${escrow.maxPaymentAmount}] raw units for ${mint}`,
    };
  }
  if (amount < escrow.minFeeAmount) {
    return {
      reason: "invalid_sla_escrow_amount_below_minimum",
      term: "amount",
      rule: `is below the escrow's minimum fee of ${escrow.minFeeAmount} raw units: the seller would receive nothing`,
    };
  }
  return null;
}

/** The numbers an amount refusal carries besides its sentence: the smallest and largest amount the escrow takes. */
export function escrowAmountLimits(escrow: Escrow): { minimumAmount: string; maximumAmount: string } {
  const minimum = escrow.minPaymentAmount > escrow.minFeeAmount ? escrow.minPaymentAmount : escrow.minFeeAmount;
  return { minimumAmount: minimum.toString(), maximumAmount: escrow.maxPaymentAmount.toString() };
}

/** A violation in the words of an `accepts[]` line (its terms are `extra.*`, `amount` and `maxTimeoutSeconds`). */
function lineMessage({ term, rule }: FundingViolation, funding: FundingTerms): string {
  switch (term) {
    case "seller":
      return `The seller (extra.beneficiary / extra.merchantWallet) ${rule}`;
    case "escrow":
      return `The escrow for asset ${funding.mint} ${rule}`;
    case "amount":
      return `amount ${funding.amount} ${rule}`;
    case "ttl":
      return `maxTimeoutSeconds ${funding.ttlSeconds} is the escrow ttl: it ${rule}`;
  }
}
