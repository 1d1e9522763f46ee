/** The `exact` rail's rejection reasons (x402's exact-svm names, plus just-in-time vault provisioning). */
export const EXACT_REJECTION_REASONS = [
  "invalid_exact_svm_payload_transaction_could_not_be_decoded",
  "invalid_exact_svm_payload_address_lookup_tables",
  "invalid_exact_svm_fee_payer_mismatch",
  "invalid_exact_svm_payload_excessive_signers",
  "invalid_exact_svm_payload_missing_signer",
  "invalid_exact_svm_payload_durable_nonce",
  "invalid_exact_svm_payload_transaction_instructions",
  "invalid_exact_svm_payload_no_transfer_instruction",
  "invalid_exact_svm_payload_multiple_transfers",
  "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds",
  "invalid_exact_svm_payload_recipient_mismatch",
  "invalid_exact_svm_payload_transfer_to_source",
  "invalid_exact_svm_payload_recipient_token_account_missing",
  "invalid_exact_svm_payload_wallet_pay_to_native_sol",
  "invalid_exact_svm_payload_amount_mismatch",
  "invalid_exact_svm_payload_mint_mismatch",
  "invalid_exact_svm_payload_mint_extension_not_allowed",
  "invalid_exact_svm_payload_mint_close_authority",
  "invalid_exact_svm_payload_memo_count",
  "invalid_exact_svm_payload_memo_mismatch",
  "invalid_exact_svm_payload_lighthouse_count",
  "invalid_exact_svm_payload_unknown_optional_instruction",
  "invalid_exact_svm_payload_unsupported_compute_budget_instruction",
  "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction",
  "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high",
  "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction",
  "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high",
  "invalid_exact_svm_payload_missing_merchant_wallet",
  "invalid_exact_svm_payload_missing_fee_payer",
  "invalid_exact_svm_fee_payer_not_managed_by_facilitator",
  "invalid_exact_svm_payload_amount_below_minimum",
  "invalid_exact_svm_payload_missing_signature",
  "invalid_exact_svm_payload_signature_invalid",
  "invalid_exact_svm_payload_vault_token_account_squatted",
  "vault_provisioning_failed",
  "vault_not_provisioned",
] as const;
export type ExactRejectionReason = (typeof EXACT_REJECTION_REASONS)[number];

// Joins the closed set of x402/rejection-reasons.ts (declaration merging: the core lists no rail's reasons).
declare module "../../x402/rejection-reasons" {
  interface RailRejectionReasons extends Record<ExactRejectionReason, true> {}
}
