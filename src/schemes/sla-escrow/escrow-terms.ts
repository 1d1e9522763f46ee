import { isAddress, type Address } from "@solana/kit";
import type { Config } from "../../config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../config/networks";
import { MAX_PAYMENT_TTL_SECONDS, MIN_PAYMENT_TTL_SECONDS } from "../../programs/sla-escrow/instructions";
import type { PaymentRequirements } from "../../x402/schemas";
import type { Refusal, RejectionReason } from "../../x402/payment-verdict";
import { getSlaEscrowFacts, type SlaEscrowFacts } from "./escrow-facts";

/**
 * The terms of an `sla-escrow` line (docs/facilitator-spec.md §2.1, docs/sla-escrow-abi.md "Verification"), checked before any transaction is read:
 * the builder refuses a line that breaks them, and verify refuses a payment made against one.
 */
export interface EscrowTerms {
  facts: SlaEscrowFacts;
  /** The on-chain seller of FundPayment: `extra.beneficiary`, else `extra.merchantWallet`. */
  seller: Address;
  /** SOL or an SPL mint (native SOL uses the all-zero address, which is also the allowlist's SOL address). */
  kind: "sol" | "spl";
  ttlSeconds: bigint;
  /** Oracles the buyer may name: this facilitator's list, narrowed by the line's `extra.oracleAuthorities` when given. */
  oracleAuthorities: Address[];
}

export interface TermsRejection extends Refusal {
  ok: false;
  /** The rail is not configured on this cluster (the builder answers 501). */
  notConfigured?: boolean;
}

export async function checkEscrowTerms(
  config: Config,
  requirements: PaymentRequirements,
  amount: bigint,
): Promise<{ ok: true; terms: EscrowTerms } | TermsRejection> {
  const extra = requirements.extra;
  const programId = config.programs.slaEscrow;
  if (extra.escrowProgramId !== undefined && extra.escrowProgramId !== programId) {
    return refuse("invalid_sla_escrow_program_mismatch", `extra.escrowProgramId ${String(extra.escrowProgramId)} is not this facilitator's SLA-Escrow program ${programId}`);
  }
  const mint = requirements.asset as Address;
  const facts = await getSlaEscrowFacts(config, mint);
  if (!facts.bankAccount || !facts.escrowConfig || !facts.escrowAccount) {
    return {
      ...refuse("sla_escrow_not_configured", `The SLA-Escrow rail is not configured for asset ${mint} on this cluster (program ${programId}: bank, config or escrow account missing)`),
      notConfigured: true,
    };
  }
  if (extra.bankAddress !== undefined && extra.bankAddress !== facts.bank) {
    return refuse("invalid_sla_escrow_bank_mismatch", `extra.bankAddress ${String(extra.bankAddress)} is not this facilitator's bank ${facts.bank}`);
  }
  if (requirements.payTo !== facts.escrow) {
    return refuse("invalid_sla_escrow_recipient_mismatch", `payTo ${requirements.payTo} is not the Escrow PDA ${facts.escrow} of asset ${mint} and bank ${facts.bank}`);
  }

  const named = extra.beneficiary ?? extra.merchantWallet;
  if (typeof named !== "string" || !isAddress(named)) {
    return refuse("invalid_sla_escrow_missing_seller", "extra.beneficiary or extra.merchantWallet must name the seller's wallet (base58): it becomes FundPayment.seller");
  }
  if (named === facts.escrow) {
    return refuse("invalid_sla_escrow_seller_is_escrow", "The seller (extra.beneficiary / extra.merchantWallet) must be the seller's wallet, not the Escrow PDA");
  }

  const escrow = facts.escrowAccount;
  if (escrow.paused) return refuse("sla_escrow_paused", `The escrow for asset ${mint} is paused by its operator; try again later`);
  if (amount < escrow.minPaymentAmount || amount > escrow.maxPaymentAmount) {
    return refuse(
      "invalid_sla_escrow_amount_out_of_range",
      `amount ${amount} is outside the escrow's range [${escrow.minPaymentAmount}, ${escrow.maxPaymentAmount}] raw units for ${mint}`,
    );
  }
  if (amount < escrow.minFeeAmount) {
    return refuse("invalid_sla_escrow_amount_below_minimum", `amount ${amount} is below the escrow's minimum fee of ${escrow.minFeeAmount} raw units: the seller would receive nothing`);
  }

  const ttlSeconds = BigInt(requirements.maxTimeoutSeconds);
  const floor = facts.escrowConfig.deliveryCutoffSeconds + BigInt(config.slaEscrow.deliveryBudgetSeconds);
  if (ttlSeconds < MIN_PAYMENT_TTL_SECONDS || ttlSeconds > MAX_PAYMENT_TTL_SECONDS || ttlSeconds < floor) {
    return refuse(
      "invalid_sla_escrow_ttl",
      `maxTimeoutSeconds ${ttlSeconds} is the escrow ttl: it must lie in [${MIN_PAYMENT_TTL_SECONDS}, ${MAX_PAYMENT_TTL_SECONDS}] and cover the delivery cutoff plus the delivery budget (${floor} s)`,
    );
  }

  const listed = Array.isArray(extra.oracleAuthorities) ? new Set(extra.oracleAuthorities.filter((key): key is string => typeof key === "string")) : null;
  const oracleAuthorities = config.slaEscrow.oracleAuthorities.filter((key) => listed === null || listed.has(key));
  if (oracleAuthorities.length === 0) {
    return refuse("invalid_sla_escrow_oracle", "No oracle authority is both configured by this facilitator and listed in extra.oracleAuthorities; see /supported");
  }

  return {
    ok: true,
    terms: { facts, seller: named as Address, kind: mint === NATIVE_SOL_ALLOWLIST_ADDRESS ? "sol" : "spl", ttlSeconds, oracleAuthorities },
  };
}

function refuse(reason: RejectionReason, message: string): TermsRejection {
  return { ok: false, reason, message };
}
