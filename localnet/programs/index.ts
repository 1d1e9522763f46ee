/**
 * Stand-in SBF programs loaded by the local chain at start. DEVELOPMENT AND TEST FIXTURES ONLY:
 * they imitate the closed-source UniversalSettle and SLA-Escrow programs closely enough for the
 * facilitator's transactions to execute locally, and are never to be deployed anywhere.
 */
export interface StandInProgram {
  /** Program id the stand-in is loaded at (the devnet id of the real program). */
  programId: string;
  /** Absolute path of the committed, post-linked ELF. */
  soPath: string;
}

export const STANDIN_PROGRAMS: StandInProgram[] = [];
