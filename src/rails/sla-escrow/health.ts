import type { RailHealth } from "../rail";
import { escrowKeeperJob } from "./keeper/escrow-keeper-job";
import { decodeBank, decodeEscrowConfig } from "./program/accounts";
import { findBankPda, findEscrowConfigPda } from "./program/pda";

/** The sla-escrow rail's part of /health: its program with the facilitator's Bank and the program Config. */
export const slaEscrowHealth: RailHealth = {
  jobFlags: { slaEscrowSettleCronConfigured: escrowKeeperJob.name },
  program: {
    key: "slaEscrow",
    programId: (config) => config.programs.slaEscrow,
    async accounts(config) {
      const [[bank], [escrowConfig]] = await Promise.all([
        findBankPda(config.programs.slaEscrow),
        findEscrowConfigPda(config.programs.slaEscrow),
      ]);
      return {
        bank: { address: bank, decode: decodeBank },
        config: { address: escrowConfig, decode: decodeEscrowConfig },
      };
    },
  },
};
