/** The `sla-escrow` rail's rejection reasons (its terms, its FundPayment rules, and the escrow's own state). */
export const SLA_ESCROW_REJECTION_REASONS = [
  "sla_escrow_not_configured",
  "sla_escrow_paused",
  "invalid_sla_escrow_program_mismatch",
  "invalid_sla_escrow_bank_mismatch",
  "invalid_sla_escrow_missing_seller",
  "invalid_sla_escrow_seller_is_escrow",
  "invalid_sla_escrow_recipient_mismatch",
  "invalid_sla_escrow_oracle",
  "invalid_sla_escrow_amount_below_minimum",
  "invalid_sla_escrow_amount_out_of_range",
  "invalid_sla_escrow_ttl",
  "invalid_sla_escrow_payload_transaction_could_not_be_decoded",
  "invalid_sla_escrow_payload_lookup_tables",
  "invalid_sla_escrow_payload_fee_payer",
  "invalid_sla_escrow_payload_fee_payer_in_instruction",
  "invalid_sla_escrow_payload_signers",
  "invalid_sla_escrow_payload_sponsorship_disabled",
  "invalid_sla_escrow_payload_sponsorship_refused",
  "invalid_sla_escrow_payload_compute_budget",
  "invalid_sla_escrow_payload_unexpected_instruction",
  "invalid_sla_escrow_payload_missing_funding",
  "invalid_sla_escrow_payload_multiple_fundings",
  "invalid_sla_escrow_payload_accounts",
  "invalid_sla_escrow_payload_mint",
  "invalid_sla_escrow_payload_seller_mismatch",
  "invalid_sla_escrow_payload_mint_mismatch",
  "invalid_sla_escrow_payload_amount_mismatch",
  "invalid_sla_escrow_payload_ttl_mismatch",
  "invalid_sla_escrow_payload_oracle",
  "invalid_sla_escrow_payload_missing_signature",
  "invalid_sla_escrow_payload_signature_invalid",
] as const;
export type SlaEscrowRejectionReason = (typeof SLA_ESCROW_REJECTION_REASONS)[number];

// Joins the closed set of x402/rejection-reasons.ts (declaration merging: the core lists no rail's reasons).
declare module "../../x402/rejection-reasons" {
  interface RailRejectionReasons extends Record<SlaEscrowRejectionReason, true> {}
}
