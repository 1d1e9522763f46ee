/**
 * The `upto` rail's rejection reasons: the official @x402/svm upto facilitator's where it has one (wire compatibility
 * with the official server), ours for what it does not check (withdraw-delay bounds, the treasury account, the
 * minimum).
 */
export const UPTO_REJECTION_REASONS = [
  "unsupported_payload_type",
  "facilitator_mismatch",
  "invalid_upto_svm_payment_requirements",
  "invalid_upto_svm_payload_receiver_authorizer",
  "invalid_upto_svm_payload_amount_mismatch",
  "invalid_upto_svm_payload_deposit_not_ceiling",
  "invalid_upto_svm_payload_not_yet_active",
  "invalid_upto_svm_payload_expired",
  "invalid_upto_svm_payload_channel_lifetime_exceeded",
  "invalid_upto_svm_payload_expires_at_mismatch",
  "invalid_upto_svm_payload_open_transaction",
  "invalid_upto_svm_payload_channel_id",
  "invalid_upto_svm_payload_nonce",
  "invalid_upto_svm_payload_payer_mismatch",
  "invalid_upto_svm_payload_channel_seed",
  "invalid_upto_svm_settlement_simulation",
  "invalid_upto_svm_payload_unexpected_voucher",
  "invalid_upto_svm_payload_type",
  "invalid_upto_svm_payload_missing_voucher",
  "invalid_upto_svm_payload_voucher_signature",
  "invalid_upto_svm_payload_settlement_exceeds_amount",
  "invalid_upto_svm_channel_already_open",
  "invalid_upto_svm_channel_state",
  "invalid_upto_svm_authorizer_not_configured",
  "invalid_upto_svm_authorizer_address_mismatch",
  "invalid_upto_svm_delegated_settle_unauthenticated",
  "invalid_upto_svm_withdraw_delay_out_of_bounds",
  "invalid_upto_svm_payload_amount_below_minimum",
  "invalid_upto_svm_payload_mint_mismatch",
  "invalid_upto_svm_payload_mint_extension_not_allowed",
  "invalid_upto_svm_payload_mint_freeze_authority",
  "invalid_upto_svm_payout_account_unusable",
  "invalid_upto_svm_treasury_account_missing",
] as const;
/**
 * The refusals of its channel caps in the fee payer's exposure budget (./channel-rent-caps.ts): the OpenAPI document
 * lists them after the budget's own (`RailExposure.reasons`).
 */
export const UPTO_BUDGET_REJECTION_REASONS = [
  "upto_open_channels_per_payer_exceeded",
  "upto_open_channels_per_pay_to_exceeded",
  "upto_opens_per_payer_per_hour_exceeded",
] as const;
export type UptoRejectionReason =
  | (typeof UPTO_REJECTION_REASONS)[number]
  | (typeof UPTO_BUDGET_REJECTION_REASONS)[number];

// Joins the closed set of x402/rejection-reasons.ts (declaration merging: the core lists no rail's reasons).
declare module "../../x402/rejection-reasons" {
  interface RailRejectionReasons extends Record<UptoRejectionReason, true> {}
}
