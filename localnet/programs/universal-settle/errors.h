/*
 * Custom error codes of the UniversalSettle STAND-IN (development and test fixture only).
 *
 * The real program's codes are not public (docs/universal-settle-abi.md "Not known"); these are this stand-in's own and the
 * facilitator must not depend on them. They start at 6000 so that they never collide with the small
 * codes the SPL Token program returns from a nested CPI. Mirrored in localnet/programs/README.md
 * and test/programs/universal-settle-errors.ts.
 */
#ifndef UNIVERSAL_SETTLE_ERRORS_H
#define UNIVERSAL_SETTLE_ERRORS_H

enum UniversalSettleError {
  US_ERR_INVALID_INSTRUCTION = 6000,       /* unknown discriminator or wrong data length */
  US_ERR_NOT_ENOUGH_ACCOUNTS = 6001,       /* fewer accounts than the instruction's list */
  US_ERR_MISSING_SIGNATURE = 6002,         /* the payer did not sign */
  US_ERR_ACCOUNT_NOT_WRITABLE = 6003,      /* an account marked (w) in the ABI was passed read-only */
  US_ERR_INVALID_VAULT_ADDRESS = 6004,     /* vault is not PDA("vault", seller) */
  US_ERR_INVALID_SOL_STORAGE = 6005,       /* not PDA("sol_storage", vault), or not a System account */
  US_ERR_VAULT_ALREADY_EXISTS = 6006,      /* CreateVault on an initialised vault */
  US_ERR_INVALID_VAULT_ACCOUNT = 6007,     /* vault not owned by the program / wrong size or discriminator */
  US_ERR_INVALID_CONFIG = 6008,            /* config is not PDA("config") holding a Config */
  US_ERR_INVALID_SYSTEM_PROGRAM = 6009,    /* the System program slot holds another account */
  US_ERR_INVALID_TOKEN_PROGRAM = 6010,     /* neither Token nor Token-2022 */
  US_ERR_INVALID_MINT = 6011,              /* mint account differs from the data, or is not a mint */
  US_ERR_INVALID_VAULT_TOKEN_ACCOUNT = 6012, /* not a token account of (mint, owner = vault PDA) */
  US_ERR_INVALID_SELLER_ACCOUNT = 6013,    /* not the vault's seller (SOL) / not the seller's token account (SPL) */
  US_ERR_INVALID_FEE_RECEIVER = 6014,      /* not the Config's fee destination (or its shard) / its token account */
  US_ERR_AMOUNT_BELOW_MINIMUM_FEE = 6015,  /* the sweep amount is below the Config's minimum fee */
  US_ERR_INSUFFICIENT_VAULT_BALANCE = 6016, /* amount exceeds what the vault holds above its rent reserve */
  US_ERR_NOTHING_TO_SWEEP = 6017,          /* "everything" (amount 0) but the vault holds nothing */
  US_ERR_INVALID_SOL_FLAG = 6018,          /* is_sol not 0/1, or inconsistent with the mint field */
};

#endif /* UNIVERSAL_SETTLE_ERRORS_H */
