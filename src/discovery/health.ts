import type { Config } from "../config/load-config";
import { probeDatabase } from "../store/parameters";
import { countJitProvisionsOn } from "../store/jit-provisions";
import { lastSweepRun } from "../store/sweeps";
import { redactRpcUrl, solanaRpc } from "../solana/rpc";
import { readProgramsHealth, type ProgramsHealth } from "./program-health";

export const SCHEMA_VERSION = "1.2.0";

export interface HealthReport {
  status: "ok" | "warning";
  schemaVersion: string;
  database: "connected" | "disabled" | "error";
  solanaRpc: "connected" | "error";
  solanaSlot: number | null;
  environment: string;
  solanaNetwork: "devnet" | "mainnet";
  network: string;
  solanaWalletRpcUrl: string;
  feePayer: string;
  /** Just-in-time vault provisioning: vaults fronted today against the daily cap (null when the database is down). */
  justInTimeProvisioning: { provisionedToday: number | null; dailyCap: number };
  /** The last real sweep run (null before the first one, or when the database is down). */
  lastSweepRun: { at: string; trigger: string; outcome: string; scanned: number; succeeded: number; failed: number } | null;
  /** Each configured program and its program-wide accounts: found and decoded (cached for a minute). */
  programs: ProgramsHealth;
}

/** Live health: one getSlot and one trivial query, in parallel; neither failure is fatal to the answer. */
export async function buildHealthReport(config: Config, db: D1Database | undefined): Promise<HealthReport> {
  const [slot, database, provisionedToday, sweepRun, programs] = await Promise.all([
    currentSlot(config),
    probeDatabase(db),
    db ? countJitProvisionsOn(db, Date.now()).catch(() => null) : Promise.resolve(null),
    db ? lastSweepRun(db).catch(() => null) : Promise.resolve(null),
    readProgramsHealth(config),
  ]);
  const healthy = slot !== null && database !== "error" && programs.ok !== false;
  return {
    status: healthy ? "ok" : "warning",
    schemaVersion: SCHEMA_VERSION,
    database,
    solanaRpc: slot === null ? "error" : "connected",
    solanaSlot: slot,
    environment: config.environment,
    solanaNetwork: config.cluster,
    network: config.network,
    solanaWalletRpcUrl: redactRpcUrl(config.walletRpcUrl),
    feePayer: config.feePayer.address,
    justInTimeProvisioning: { provisionedToday, dailyCap: config.limits.jitProvisioningDailyCap },
    lastSweepRun: sweepRun && {
      at: new Date(sweepRun.finishedAtMs).toISOString(),
      trigger: sweepRun.trigger,
      outcome: sweepRun.outcome,
      scanned: sweepRun.scanned,
      succeeded: sweepRun.succeeded,
      failed: sweepRun.failed,
    },
    programs,
  };
}

async function currentSlot(config: Config): Promise<number | null> {
  try {
    const slot = await solanaRpc(config)
      .getSlot({ commitment: "confirmed" })
      .send({ abortSignal: AbortSignal.timeout(Math.min(config.rpcTimeoutMs, 5_000)) });
    return Number(slot);
  } catch {
    return null;
  }
}
