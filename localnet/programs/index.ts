/**
 * Stand-in SBF programs loaded by the local chain at start. DEVELOPMENT AND TEST FIXTURES ONLY:
 * they imitate the closed-source UniversalSettle and SLA-Escrow programs, the open-source
 * payment-channels program whose Rust build cannot run here, and the wallet-side Lighthouse assertion
 * program closely enough for the facilitator's transactions to execute locally, and are never to be deployed anywhere.
 * Sources, build and behaviour: localnet/programs/README.md.
 */
import { fileURLToPath } from "node:url";

export interface StandInProgram {
  /** Program id the stand-in is loaded at (the devnet id of the real program). */
  programId: string;
  /** Absolute path of the committed, post-linked ELF. */
  soPath: string;
}

/** Devnet id of UniversalSettle (the `exact` rail's split vaults). */
export const UNIVERSAL_SETTLE_DEVNET_PROGRAM_ID = "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf";
/** Devnet id of SLA-Escrow (the `sla-escrow` rail). */
export const SLA_ESCROW_DEVNET_PROGRAM_ID = "s5zkKiy8FD9nFdAhQZoHHV3G8s4QCPzE4cR9U4Hr4ZH";

/** The Solana Foundation's payment-channels program (the `upto` rail), same id on devnet and mainnet. */
export const PAYMENT_CHANNELS_PROGRAM_ID = "CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX";
/**
 * Owner of the payment-channels treasury ATAs (rounding dust, redirected payouts). The official
 * @x402/svm upto facilitator uses this owner on devnet; the stand-in checks it in Distribute.
 */
export const PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER = "4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap";

function builtProgramPath(name: string): string {
  return fileURLToPath(new URL(`./build/${name}.so`, import.meta.url));
}

export const UNIVERSAL_SETTLE_STANDIN: StandInProgram = {
  programId: UNIVERSAL_SETTLE_DEVNET_PROGRAM_ID,
  soPath: builtProgramPath("universal-settle"),
};

export const SLA_ESCROW_STANDIN: StandInProgram = {
  programId: SLA_ESCROW_DEVNET_PROGRAM_ID,
  soPath: builtProgramPath("sla-escrow"),
};

export const PAYMENT_CHANNELS_STANDIN: StandInProgram = {
  programId: PAYMENT_CHANNELS_PROGRAM_ID,
  soPath: builtProgramPath("payment-channels"),
};

/** Lighthouse (wallet-injected assertion instructions; the x402 SVM exact scheme allows them in a payment). */
export const LIGHTHOUSE_PROGRAM_ID = "L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95";

export const LIGHTHOUSE_STANDIN: StandInProgram = {
  programId: LIGHTHOUSE_PROGRAM_ID,
  soPath: builtProgramPath("lighthouse"),
};

/** Swig smart wallets (v2 accounts), at the real program id; the x402 exact scheme verifies its payments by outcome. */
export const SWIG_PROGRAM_ID = "swigypWHEksbC64pWKwah1WTeh9JXwx8H1rJHLdbQMB";

export const SWIG_STANDIN: StandInProgram = { programId: SWIG_PROGRAM_ID, soPath: builtProgramPath("swig") };

/** Squads Multisig v4, at the real program id; the x402 exact scheme verifies its vault payments by outcome. */
export const SQUADS_MULTISIG_PROGRAM_ID = "SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf";

export const SQUADS_STANDIN: StandInProgram = {
  programId: SQUADS_MULTISIG_PROGRAM_ID,
  soPath: builtProgramPath("squads"),
};

export const STANDIN_PROGRAMS: StandInProgram[] = [
  UNIVERSAL_SETTLE_STANDIN,
  SLA_ESCROW_STANDIN,
  PAYMENT_CHANNELS_STANDIN,
  LIGHTHOUSE_STANDIN,
  SWIG_STANDIN,
  SQUADS_STANDIN,
];
