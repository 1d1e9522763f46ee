import type { RailHealth } from "../rail";
import { decodeUniversalSettleConfig } from "./program/accounts";
import { findUniversalSettleConfigPda } from "./program/pda";
import { countJitProvisionsOn } from "./store/jit-provisions";
import { sweepJob } from "./sweep/sweep-job";
import { lastSweepRun } from "./sweep/sweeps";
import { requireUniversalSettle } from "./universal-settle-program";

/**
 * The exact rail's part of /health: just-in-time vault provisioning against its daily cap, the last real sweep run
 * (each null when the database is down or before the first one), and the UniversalSettle program with its Config.
 */
export const exactHealth: RailHealth = {
  jobFlags: { vaultSweepCronConfigured: sweepJob.name },
  async report(config, db) {
    const [provisionedToday, sweepRun] = await Promise.all([
      db ? countJitProvisionsOn(db, Date.now()).catch(() => null) : Promise.resolve(null),
      db ? lastSweepRun(db).catch(() => null) : Promise.resolve(null),
    ]);
    return {
      justInTimeProvisioning: { provisionedToday, dailyCap: config.limits.jitProvisioningDailyCap },
      lastSweepRun: sweepRun && {
        at: new Date(sweepRun.finishedAtMs).toISOString(),
        trigger: sweepRun.trigger,
        outcome: sweepRun.outcome,
        scanned: sweepRun.scanned,
        succeeded: sweepRun.succeeded,
        failed: sweepRun.failed,
      },
    };
  },
  program: {
    key: "universalSettle",
    programId: (config) => config.programs.universalSettle,
    async accounts(config) {
      const [settleConfig] = await findUniversalSettleConfigPda(requireUniversalSettle(config));
      return { config: { address: settleConfig, decode: decodeUniversalSettleConfig } };
    },
  },
};
