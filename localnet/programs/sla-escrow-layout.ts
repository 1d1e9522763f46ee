/**
 * Values the SLA-Escrow STAND-IN chose where the ABI is silent (DEVELOPMENT AND TEST FIXTURE ONLY).
 * The facilitator treats PaymentExt as opaque and unknown Payment states as opaque; these exist for
 * tests and local tooling. Documented in localnet/programs/README.md.
 */
export const SLA_ESCROW_STANDIN_LAYOUT = {
  /** Payment.state of a V2 payment under dispute (Release / Refund blocked until ResolveWithSplit). */
  PAYMENT_STATE_DISPUTED: 11,
  PAYMENT_EXT_DISCRIMINATOR: 105,
  PAYMENT_EXT_ACCOUNT_SIZE: 176,
  /** Byte offsets inside the PaymentExt account (8-byte header included). */
  PAYMENT_EXT_OFFSET: {
    payment: 8,
    adjudicator: 40,
    disputeReasonHash: 72,
    proposedPubkey: 104,
    arbitrationWindowSeconds: 136,
    minOracleTip: 144,
    disputedAt: 152,
    proposedValue: 160,
    proposedAction: 168,
    proposedBy: 169,
    isDisputed: 170,
    bump: 171,
  },
} as const;
