/*
 * Custom error codes of the SLA-Escrow STAND-IN (development and test fixture only).
 *
 * The real program's codes are not public, except the name DeliveryTooLateForOracle (docs/sla-escrow-abi.md "Errors"); these
 * numbers are this stand-in's own and the facilitator must not depend on them. They start at 7000
 * (UniversalSettle's stand-in uses 6000+) so that a code in a log names its program, and never
 * collide with the small codes of a nested SPL Token failure. Mirrored in
 * localnet/programs/errors.ts and localnet/programs/README.md.
 */
#ifndef SLA_ESCROW_ERRORS_H
#define SLA_ESCROW_ERRORS_H

enum SlaEscrowError {
  SLA_ERR_INVALID_INSTRUCTION = 7000,         /* unknown discriminator or wrong data length */
  SLA_ERR_NOT_ENOUGH_ACCOUNTS = 7001,         /* fewer accounts than the instruction's list */
  SLA_ERR_MISSING_SIGNATURE = 7002,           /* the acting party did not sign */
  SLA_ERR_ACCOUNT_NOT_WRITABLE = 7003,        /* an account marked (w) was passed read-only */
  SLA_ERR_INVALID_BANK = 7004,                /* not PDA("bank") holding a Bank */
  SLA_ERR_INVALID_CONFIG = 7005,              /* not PDA("config") holding a Config */
  SLA_ERR_INVALID_ESCROW = 7006,              /* not PDA("escrow", mint, bank) holding an Escrow */
  SLA_ERR_INVALID_PAYMENT_ADDRESS = 7007,     /* not PDA("payment", uid, bank) */
  SLA_ERR_PAYMENT_ALREADY_EXISTS = 7008,      /* FundPayment of a uid that is already funded */
  SLA_ERR_INVALID_PAYMENT_ACCOUNT = 7009,     /* not a Payment of this escrow */
  SLA_ERR_INVALID_PAYMENT_EXT = 7010,         /* not the PaymentExt of this payment (or a v1 payment) */
  SLA_ERR_INVALID_MINT = 7011,                /* mint account differs from the escrow's / payment's */
  SLA_ERR_INVALID_SOL_STORAGE = 7012,         /* not PDA("sol_storage", mint, bank, escrow) */
  SLA_ERR_INVALID_TOKEN_PROGRAM = 7013,       /* neither Token nor Token-2022 */
  SLA_ERR_INVALID_ESCROW_TOKEN_ACCOUNT = 7014, /* not the escrow's token account for the mint */
  SLA_ERR_INVALID_RECIPIENT = 7015,           /* a payout account is not the seller's / buyer's / adjudicator's */
  SLA_ERR_INVALID_SYSTEM_PROGRAM = 7016,      /* the System program slot holds another account */
  SLA_ERR_ESCROW_PAUSED = 7017,               /* Escrow.paused */
  SLA_ERR_ESCROW_NOT_OPEN = 7018,             /* Bank or Escrow open_at is in the future */
  SLA_ERR_AMOUNT_OUT_OF_RANGE = 7019,         /* zero, or outside [min_payment_amount, max_payment_amount] */
  SLA_ERR_INVALID_TTL = 7020,                 /* ttl_seconds outside [60, 2,592,000] */
  SLA_ERR_INVALID_SELLER = 7021,              /* seller is zero or the escrow PDA itself */
  SLA_ERR_PAYMENT_NOT_FUNDED = 7022,          /* the payment is settled (or in a state the instruction refuses) */
  SLA_ERR_PAYMENT_DISPUTED = 7023,            /* release / refund / delivery while a dispute is open */
  SLA_ERR_NOT_PAYMENT_SELLER = 7024,          /* signer is not Payment.seller */
  SLA_ERR_NOT_PAYMENT_BUYER = 7025,           /* signer is not Payment.buyer */
  SLA_ERR_NOT_PAYMENT_ORACLE = 7026,          /* signer is not Payment.oracle_authority */
  SLA_ERR_NOT_PAYMENT_PARTY = 7027,           /* signer is neither buyer nor seller */
  SLA_ERR_NOT_ADJUDICATOR = 7028,             /* signer is not PaymentExt.adjudicator */
  SLA_ERR_DELIVERY_TOO_LATE_FOR_ORACLE = 7029, /* now > expires_at - delivery_cutoff_seconds */
  SLA_ERR_DELIVERY_ALREADY_SUBMITTED = 7030,  /* a second SubmitDelivery */
  SLA_ERR_DELIVERY_NOT_SUBMITTED = 7031,      /* approve / release before any delivery */
  SLA_ERR_DELIVERY_HASH_MISMATCH = 7032,      /* the hash given is not Payment.delivery_hash */
  SLA_ERR_INVALID_DELIVERY_HASH = 7033,       /* an all-zero delivery hash (zero means "none") */
  SLA_ERR_RESOLUTION_ALREADY_SET = 7034,      /* approve / confirm / deliver after a resolution was recorded */
  SLA_ERR_INVALID_RESOLUTION_STATE = 7035,    /* ConfirmOracle state other than 1 (approved) / 2 (rejected) */
  SLA_ERR_RELEASE_NOT_YET_AVAILABLE = 7036,   /* not approved and expires_at not reached */
  SLA_ERR_REFUND_NOT_YET_AVAILABLE = 7037,    /* not rejected and expires_at + refund_cooldown not reached */
  SLA_ERR_DELIVERY_REJECTED = 7038,           /* release of a rejected delivery */
  SLA_ERR_DELIVERY_APPROVED = 7039,           /* refund of an approved delivery, or of a delivered one */
  SLA_ERR_INVALID_SPLIT = 7040,               /* seller_bps > 10,000 */
  SLA_ERR_INVALID_MUTUAL_ACTION = 7041,       /* unknown action, zero pubkey, or non-positive value */
  SLA_ERR_NO_PENDING_PROPOSAL = 7042,         /* AcceptMutualAction with nothing proposed */
  SLA_ERR_CANNOT_ACCEPT_OWN_PROPOSAL = 7043,  /* the proposer tried to accept */
  SLA_ERR_PROPOSAL_MISMATCH = 7044,           /* Accept data differs from the pending proposal */
  SLA_ERR_DISPUTE_WINDOW_CLOSED = 7045,       /* now > expires_at + arbitration_window_seconds */
  SLA_ERR_PAYMENT_NOT_SETTLED = 7046,         /* ClosePayment of a payment still funded */
  SLA_ERR_CLOSE_NOT_YET_AVAILABLE = 7047,     /* ClosePayment before closed_at */
  SLA_ERR_INVALID_TTL_EXTENSION = 7048,       /* additional_seconds not in [1, 2,592,000], or total TTL over it */
  SLA_ERR_PAYMENT_EXPIRED = 7049,             /* ConfirmOracle / ExtendPaymentTTL after expires_at */
};

#endif /* SLA_ESCROW_ERRORS_H */
