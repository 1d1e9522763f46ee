/**
 * Custom error codes of the stand-in programs (DEVELOPMENT AND TEST FIXTURES ONLY), mirrored from
 * universal-settle/errors.h and sla-escrow/errors.h (test/programs/errors.test.ts keeps them equal).
 * The real programs' codes are not public: the facilitator must not branch on these; they exist so
 * that tests and local logs can name a failure.
 */
export const UNIVERSAL_SETTLE_STANDIN_ERROR = {
  InvalidInstruction: 6000,
  NotEnoughAccounts: 6001,
  MissingSignature: 6002,
  AccountNotWritable: 6003,
  InvalidVaultAddress: 6004,
  InvalidSolStorage: 6005,
  VaultAlreadyExists: 6006,
  InvalidVaultAccount: 6007,
  InvalidConfig: 6008,
  InvalidSystemProgram: 6009,
  InvalidTokenProgram: 6010,
  InvalidMint: 6011,
  InvalidVaultTokenAccount: 6012,
  InvalidSellerAccount: 6013,
  InvalidFeeReceiver: 6014,
  AmountBelowMinimumFee: 6015,
  InsufficientVaultBalance: 6016,
  NothingToSweep: 6017,
  InvalidSolFlag: 6018,
} as const;
