/**
 * Every reason a payment can be refused with, as it goes on the wire (`invalidReason` / `errorReason`): x402's own
 * names where x402 has one, snake_case facilitator names otherwise. One closed set, so a typo is a type error: the
 * core's and the fee payer budget's reasons here, each rail's in its own folder (`rails/<scheme>/reasons.ts`), which
 * adds them to `RailRejectionReasons` and lists them as its module's `reasons`. The registry composes the whole list
 * (the one the OpenAPI document gives) in that order; the payment core never depends on which rail a reason belongs to.
 */
export type RejectionReason = CoreRejectionReason | FeePayerBudgetRejectionReason | keyof RailRejectionReasons;

/**
 * The rails' reasons, one key each. A rail adds its own by declaration merging, from its folder:
 * `declare module "../../x402/rejection-reasons" { interface RailRejectionReasons extends Record<ItsReason, true> {}
 * }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: rails add to it by declaration merging; a type alias takes none
export interface RailRejectionReasons {}

/** Reasons of the payment core and of any rail: body, common checks, payment-identifier, chain and settle outcomes. */
export const CORE_REJECTION_REASONS = [
  "invalid_payload",
  "unsupported_scheme",
  "rail_not_enabled",
  "invalid_payload_requirements_mismatch",
  "invalid_network",
  "asset_not_allowed",
  "payment_identifier_required",
  "payment_identifier_invalid",
  "payment_identifier_conflict",
  "facilitator_upstream_error",
  "facilitator_insufficient_funds",
  "fee_payer_below_settle_floor",
  "insufficient_funds",
  "blockhash_expired",
  "duplicate_settlement",
  "self_payment",
  "transaction_simulation_failed",
  "settlement_pending",
  "settlement_failed",
  "settlement_ledger_unavailable",
] as const;
export type CoreRejectionReason = (typeof CORE_REJECTION_REASONS)[number];

/**
 * The fee payer's exposure budget (src/chain/fee-payer-budget/): a spend beyond a seller's network fee that would pass
 * one of the operator's caps, refused before anything is signed (a rail's own caps' reasons are the rail's, listed
 * after these: `RailExposure.reasons`). Never the buyer's `insufficient_funds`: the
 * facilitator's own limits (503) or the wallet's share of them (429).
 */
export const FEE_PAYER_BUDGET_REJECTION_REASONS = [
  "fee_payer_below_minimum",
  "fee_payer_rent_share_exceeded",
  "fee_payer_rent_per_payer_exceeded",
  "fee_payer_rent_per_pay_to_exceeded",
  "fee_payer_spend_per_day_exceeded",
  "fee_payer_spend_per_payer_exceeded",
  "fee_payer_spend_per_pay_to_exceeded",
  "fee_payer_buyer_spend_per_day_exceeded",
  "fee_payer_seller_quota_exceeded",
  "fee_payer_proven_sellers_spend_per_day_exceeded",
  "fee_payer_failures_per_payer_exceeded",
] as const;
export type FeePayerBudgetRejectionReason = (typeof FEE_PAYER_BUDGET_REJECTION_REASONS)[number];
