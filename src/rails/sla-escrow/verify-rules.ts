import type { Address } from "@solana/kit";
import { parseComputeBudgetData } from "../../chain/compute-budget";
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { DecodedInstruction, DecodedTransaction } from "../../chain/wire-transaction";
import type { Refusal, RejectionReason } from "../../x402/payment-verdict";
import { checkFundingPreparations, isFundingPreparation } from "./funding-preparation";
import {
  decodeFundPaymentInstructionData,
  FUND_PAYMENT_INSTRUCTION_DATA_SIZE,
  type FundPaymentInstructionData,
  SLA_ESCROW_INSTRUCTION,
} from "./program/instructions";

/**
 * The fee-payer policy of the `sla-escrow` rail as pure rules over a decoded transaction (docs/sla-escrow-abi.md
 * "Verification"): ComputeBudget instructions (before or after) and exactly one FundPayment; a buyer-paid funding may
 * also hold pr402's set-up steps before it (funding-preparation.ts). The buyer pays the fee alone, or (sponsorship) the
 * facilitator is fee payer at index 0 and appears nowhere else.
 */

export interface EscrowPolicy {
  programId: Address;
  facilitator: Address;
  sponsorshipAllowed: boolean;
  /** Ceilings that bind only when the facilitator pays the fee. */
  maxComputeUnitLimit: number;
  maxComputeUnitPriceMicroLamports: bigint;
}

export interface FundingShape {
  instruction: DecodedInstruction;
  data: FundPaymentInstructionData;
  buyer: Address;
  /** The facilitator is the fee payer and still has to sign. */
  sponsored: boolean;
}

export type RuleResult = { ok: true; funding: FundingShape } | ({ ok: false } & Refusal);

const fail = (reason: RejectionReason, message: string): RuleResult => ({ ok: false, reason, message });

export function checkEscrowFundingTransaction(tx: DecodedTransaction, policy: EscrowPolicy): RuleResult {
  if (tx.usesAddressLookupTables) {
    return fail(
      "invalid_sla_escrow_payload_lookup_tables",
      "Transactions that load addresses from lookup tables are refused; use static account keys only",
    );
  }
  let unitLimit: number | null = null;
  let unitPrice: bigint | null = null;
  let funding: DecodedInstruction | null = null;
  const preparations: { index: number; instruction: DecodedInstruction }[] = [];
  for (const [index, instruction] of tx.instructions.entries()) {
    if (instruction.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      const parsed = parseComputeBudgetData(instruction.data);
      if (parsed.kind === "setComputeUnitLimit" && unitLimit === null) unitLimit = parsed.units;
      else if (parsed.kind === "setComputeUnitPrice" && unitPrice === null) unitPrice = parsed.microLamports;
      else
        return fail(
          "invalid_sla_escrow_payload_compute_budget",
          `Instruction ${index}: only one SetComputeUnitLimit and one SetComputeUnitPrice are allowed`,
        );
      continue;
    }
    // pr402's builders put ComputeBudget after FundPayment (its sponsored shape); nothing else may follow it.
    if (funding !== null) {
      return instruction.programAddress === policy.programId
        ? fail("invalid_sla_escrow_payload_multiple_fundings", "A payment holds exactly one FundPayment")
        : fail(
            "invalid_sla_escrow_payload_unexpected_instruction",
            "Only ComputeBudget instructions may follow FundPayment",
          );
    }
    if (isFundingPreparation(instruction)) {
      preparations.push({ index, instruction });
      continue;
    }
    if (instruction.programAddress !== policy.programId) {
      return fail(
        "invalid_sla_escrow_payload_unexpected_instruction",
        `Instruction ${index} calls ${instruction.programAddress}; an escrow payment holds only ComputeBudget and ` +
          `one FundPayment`,
      );
    }
    if (
      instruction.data[0] !== SLA_ESCROW_INSTRUCTION.FUND_PAYMENT ||
      instruction.data.length !== FUND_PAYMENT_INSTRUCTION_DATA_SIZE
    ) {
      return fail(
        "invalid_sla_escrow_payload_unexpected_instruction",
        `Instruction ${index} is not a FundPayment (discriminator 0, ${FUND_PAYMENT_INSTRUCTION_DATA_SIZE} bytes)`,
      );
    }
    funding = instruction;
  }
  if (funding === null)
    return fail("invalid_sla_escrow_payload_missing_funding", "The transaction holds no FundPayment instruction");
  const data = decodeFundPaymentInstructionData(funding.data);
  const buyer = funding.accounts[0];
  if (!data || !buyer)
    return fail(
      "invalid_sla_escrow_payload_unexpected_instruction",
      "The FundPayment instruction could not be decoded",
    );
  if (preparations.length > 0) {
    if (tx.feePayer === policy.facilitator) {
      return fail(
        "invalid_sla_escrow_payload_unexpected_instruction",
        "A sponsored funding holds only ComputeBudget and FundPayment; set-up steps need a buyer-paid funding",
      );
    }
    const problem = checkFundingPreparations(preparations, funding);
    if (problem !== null) return fail("invalid_sla_escrow_payload_unexpected_instruction", problem);
  }

  for (const instruction of tx.instructions) {
    if (instruction.accounts.includes(policy.facilitator)) {
      return fail(
        "invalid_sla_escrow_payload_fee_payer_in_instruction",
        `The facilitator ${policy.facilitator} may not appear in any instruction's accounts`,
      );
    }
  }
  const sponsored = tx.feePayer === policy.facilitator;
  if (sponsored) {
    if (!policy.sponsorshipAllowed) {
      return fail(
        "invalid_sla_escrow_payload_sponsorship_disabled",
        "This facilitator does not pay network fees for escrow funding; the buyer must be the fee payer",
      );
    }
    if (tx.numRequiredSignatures !== 2)
      return fail(
        "invalid_sla_escrow_payload_signers",
        "A sponsored funding has exactly two signers: the facilitator (fee payer) and the buyer",
      );
    if (unitLimit === null || unitLimit > policy.maxComputeUnitLimit) {
      return fail(
        "invalid_sla_escrow_payload_compute_budget",
        `A sponsored funding must set a compute unit limit of at most ${policy.maxComputeUnitLimit}`,
      );
    }
    if (unitPrice !== null && unitPrice > policy.maxComputeUnitPriceMicroLamports) {
      return fail(
        "invalid_sla_escrow_payload_compute_budget",
        `The compute unit ` +
          `price ${unitPrice} is above this facilitator's cap ` +
          `of ${policy.maxComputeUnitPriceMicroLamports} micro-lamports`,
      );
    }
  } else {
    if (tx.feePayer !== buyer)
      return fail(
        "invalid_sla_escrow_payload_fee_payer",
        `The fee payer ${tx.feePayer} must be the buyer ${buyer} (or, with sponsorship, the facilitator)`,
      );
    if (tx.numRequiredSignatures !== 1)
      return fail("invalid_sla_escrow_payload_signers", "A buyer-paid funding has exactly one signer: the buyer");
    if (tx.staticAccounts.includes(policy.facilitator)) {
      return fail(
        "invalid_sla_escrow_payload_fee_payer_in_instruction",
        `The facilitator ${policy.facilitator} may not appear in a buyer-paid funding`,
      );
    }
  }
  return { ok: true, funding: { instruction: funding, data, buyer, sponsored } };
}
