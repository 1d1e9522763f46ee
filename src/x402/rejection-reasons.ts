/**
 * Every reason a payment can be refused with, as it goes on the wire (`invalidReason` / `errorReason`): x402's own
 * names where x402 has one, snake_case facilitator names otherwise. One closed list, so a typo is a type error and a
 * client author can read the whole vocabulary in one place. A rail adds its own reasons in its own block below; the
 * payment core never depends on which rail a reason belongs to.
 */
export type RejectionReason = CoreRejectionReason | FeePayerBudgetRejectionReason | ExactRejectionReason | SlaEscrowRejectionReason | UptoRejectionReason;

/** Reasons of the payment core and of any rail: body, common checks, payment-identifier, chain and settle outcomes. */
export type CoreRejectionReason =
  | "invalid_payload"
  | "unsupported_scheme"
  | "rail_not_enabled"
  | "invalid_payload_requirements_mismatch"
  | "invalid_network"
  | "asset_not_allowed"
  | "payment_identifier_required"
  | "payment_identifier_invalid"
  | "payment_identifier_conflict"
  | "facilitator_upstream_error"
  | "facilitator_insufficient_funds"
  | "fee_payer_below_settle_floor"
  | "insufficient_funds"
  | "blockhash_expired"
  | "duplicate_settlement"
  | "transaction_simulation_failed"
  | "settlement_pending"
  | "settlement_failed";

/**
 * The fee payer's exposure budget (src/chain/fee-payer-budget/): a spend beyond a seller's network fee that would pass one of
 * the operator's caps, refused before anything is signed. Never the buyer's `insufficient_funds`: the facilitator's
 * own limits (503) or the wallet's share of them (429).
 */
export type FeePayerBudgetRejectionReason =
  | "fee_payer_below_minimum"
  | "fee_payer_rent_share_exceeded"
  | "fee_payer_rent_per_payer_exceeded"
  | "fee_payer_rent_per_pay_to_exceeded"
  | "fee_payer_spend_per_day_exceeded"
  | "fee_payer_spend_per_payer_exceeded"
  | "fee_payer_spend_per_pay_to_exceeded"
  | "upto_open_channels_per_payer_exceeded"
  | "upto_open_channels_per_pay_to_exceeded"
  | "upto_opens_per_payer_per_hour_exceeded";

/** The `exact` rail (x402's exact-svm names, plus just-in-time vault provisioning). */
export type ExactRejectionReason =
  | "invalid_exact_svm_payload_transaction_could_not_be_decoded"
  | "invalid_exact_svm_payload_address_lookup_tables"
  | "invalid_exact_svm_fee_payer_mismatch"
  | "invalid_exact_svm_payload_excessive_signers"
  | "invalid_exact_svm_payload_missing_signer"
  | "invalid_exact_svm_payload_durable_nonce"
  | "invalid_exact_svm_payload_transaction_instructions"
  | "invalid_exact_svm_payload_no_transfer_instruction"
  | "invalid_exact_svm_payload_multiple_transfers"
  | "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds"
  | "invalid_exact_svm_payload_recipient_mismatch"
  | "invalid_exact_svm_payload_amount_mismatch"
  | "invalid_exact_svm_payload_mint_mismatch"
  | "invalid_exact_svm_payload_mint_extension_not_allowed"
  | "invalid_exact_svm_payload_memo_count"
  | "invalid_exact_svm_payload_memo_mismatch"
  | "invalid_exact_svm_payload_lighthouse_count"
  | "invalid_exact_svm_payload_unknown_optional_instruction"
  | "invalid_exact_svm_payload_unsupported_compute_budget_instruction"
  | "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction"
  | "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high"
  | "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction"
  | "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high"
  | "invalid_exact_svm_payload_missing_merchant_wallet"
  | "invalid_exact_svm_payload_missing_fee_payer"
  | "invalid_exact_svm_fee_payer_not_managed_by_facilitator"
  | "invalid_exact_svm_payload_amount_below_minimum"
  | "invalid_exact_svm_payload_missing_signature"
  | "invalid_exact_svm_payload_signature_invalid"
  | "invalid_exact_svm_payload_vault_token_account_squatted"
  | "invalid_exact_svm_payload_transfer_to_source"
  | "invalid_exact_svm_payload_wallet_pay_to_native_sol"
  | "vault_provisioning_failed"
  | "vault_not_provisioned";

/** The `sla-escrow` rail (its terms, its FundPayment rules, and the escrow's own state). */
export type SlaEscrowRejectionReason =
  | "sla_escrow_not_configured"
  | "sla_escrow_paused"
  | "invalid_sla_escrow_program_mismatch"
  | "invalid_sla_escrow_bank_mismatch"
  | "invalid_sla_escrow_missing_seller"
  | "invalid_sla_escrow_seller_is_escrow"
  | "invalid_sla_escrow_recipient_mismatch"
  | "invalid_sla_escrow_oracle"
  | "invalid_sla_escrow_amount_below_minimum"
  | "invalid_sla_escrow_amount_out_of_range"
  | "invalid_sla_escrow_ttl"
  | "invalid_sla_escrow_payload_transaction_could_not_be_decoded"
  | "invalid_sla_escrow_payload_lookup_tables"
  | "invalid_sla_escrow_payload_fee_payer"
  | "invalid_sla_escrow_payload_fee_payer_in_instruction"
  | "invalid_sla_escrow_payload_signers"
  | "invalid_sla_escrow_payload_sponsorship_disabled"
  | "invalid_sla_escrow_payload_sponsorship_refused"
  | "invalid_sla_escrow_payload_compute_budget"
  | "invalid_sla_escrow_payload_unexpected_instruction"
  | "invalid_sla_escrow_payload_missing_funding"
  | "invalid_sla_escrow_payload_multiple_fundings"
  | "invalid_sla_escrow_payload_accounts"
  | "invalid_sla_escrow_payload_mint"
  | "invalid_sla_escrow_payload_seller_mismatch"
  | "invalid_sla_escrow_payload_mint_mismatch"
  | "invalid_sla_escrow_payload_amount_mismatch"
  | "invalid_sla_escrow_payload_ttl_mismatch"
  | "invalid_sla_escrow_payload_oracle"
  | "invalid_sla_escrow_payload_buyer_is_seller"
  | "invalid_sla_escrow_payload_missing_signature"
  | "invalid_sla_escrow_payload_signature_invalid";

/**
 * The `upto` rail: the official @x402/svm upto facilitator's reasons where it has one (wire compatibility with the
 * official server), ours for what it does not check (withdraw-delay bounds, the treasury account, the minimum).
 */
export type UptoRejectionReason =
  | "unsupported_payload_type"
  | "facilitator_mismatch"
  | "invalid_upto_svm_payment_requirements"
  | "invalid_upto_svm_payload_receiver_authorizer"
  | "invalid_upto_svm_payload_amount_mismatch"
  | "invalid_upto_svm_payload_deposit_not_ceiling"
  | "invalid_upto_svm_payload_not_yet_active"
  | "invalid_upto_svm_payload_expired"
  | "invalid_upto_svm_payload_channel_lifetime_exceeded"
  | "invalid_upto_svm_payload_expires_at_mismatch"
  | "invalid_upto_svm_payload_open_transaction"
  | "invalid_upto_svm_payload_channel_id"
  | "invalid_upto_svm_payload_nonce"
  | "invalid_upto_svm_payload_payer_mismatch"
  | "invalid_upto_svm_payload_channel_seed"
  | "invalid_upto_svm_settlement_simulation"
  | "invalid_upto_svm_payload_unexpected_voucher"
  | "invalid_upto_svm_payload_type"
  | "invalid_upto_svm_payload_missing_voucher"
  | "invalid_upto_svm_payload_voucher_signature"
  | "invalid_upto_svm_payload_settlement_exceeds_amount"
  | "invalid_upto_svm_channel_already_open"
  | "invalid_upto_svm_channel_state"
  | "invalid_upto_svm_authorizer_not_configured"
  | "invalid_upto_svm_authorizer_address_mismatch"
  | "invalid_upto_svm_delegated_settle_unauthenticated"
  | "invalid_upto_svm_withdraw_delay_out_of_bounds"
  | "invalid_upto_svm_payload_amount_below_minimum"
  | "invalid_upto_svm_payload_mint_mismatch"
  | "invalid_upto_svm_payload_mint_extension_not_allowed"
  | "invalid_upto_svm_payload_mint_freeze_authority"
  | "invalid_upto_svm_payout_account_unusable"
  | "invalid_upto_svm_treasury_account_missing";
