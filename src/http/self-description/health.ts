import { type FeePayerBalanceReading, readFeePayerBalance } from "../../chain/fee-payer-balance";
import { type ExposureHealth, exposureHealth, readExposure } from "../../chain/fee-payer-budget/report";
import { redactRpcUrl } from "../../chain/rpc";
import { jobsByCron } from "../../jobs/scheduled";
import type { Config } from "../../platform/config/load-config";
import type { RailModule } from "../../rails/rail";
import { type JobRunRow, lastJobRuns } from "../../store/job-runs";
import { probeDatabase } from "../../store/parameters";
import { type ProgramsHealth, readProgramsHealth } from "./program-health";
import { SCHEMA_VERSION } from "./schema-version";

/** /health reuses a slot and balance read this recently in the same isolate (a value, never a shared promise). */
export const HEALTH_READING_MAX_AGE_MS = 1_000;
const HEALTH_RPC_TIMEOUT_MS = 5_000;

export interface JobRunView {
  /** When the run finished (RFC 3339). */
  at: string;
  startedAt: string;
  trigger: string;
  /** ok | partial | paused (fee payer below its minimum) | error */
  outcome: string;
  /** Lamports the fee payer spent in the run (decimal string). */
  lamportsSpent: string;
  detail: string | null;
}

export interface HealthReport {
  /** warning: the RPC or the database is unreachable; degraded: the fee payer is below SVC_FEE_PAYER_MIN_LAMPORTS. */
  status: "ok" | "warning" | "degraded";
  schemaVersion: string;
  database: "connected" | "disabled" | "error";
  solanaRpc: "connected" | "error";
  solanaSlot: number | null;
  environment: string;
  solanaNetwork: "devnet" | "mainnet";
  network: string;
  solanaWalletRpcUrl: string;
  feePayer: string;
  /** The fee payer's SOL balance against its two floors (lamports as decimal strings; null when unreadable). */
  feePayerBalance: {
    lamports: string | null;
    /** When this balance was read (one getBalance at confirmed commitment, RFC 3339); null when unreadable. */
    readAt: string | null;
    minLamports: string;
    settleFloorLamports: string;
    /**
     * below_minimum: sweeps, keeper payouts, just-in-time vaults and rent fronting are paused; below_settle_floor:
     * settles answer 503 too.
     */
    state: "ok" | "below_minimum" | "below_settle_floor" | "unknown";
    /** The floor the balance is below (its configuration key), or null. */
    belowFloor: "SVC_FEE_PAYER_MIN_LAMPORTS" | "SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS" | null;
  };
  /**
   * The exposure budget (src/chain/fee-payer-budget/): rent out and lamports spent beyond sellers' network fees, by
   * rail, and each cap's headroom (null when the database is down).
   */
  feePayerExposure: ExposureHealth | null;
  /**
   * Then each rail's own members (`RailHealth.report`, in registry order): e.g. the exact rail's just-in-time
   * provisioning against its daily cap and its last sweep run.
   */
  [railMember: string]: unknown;
  /**
   * pr402's keeper block (its flags: each rail's `RailHealth.jobFlags`, e.g. the exact rail's
   * `vaultSweepCronConfigured`, then `databaseConnected`), plus the last run of every scheduled job, keyed by job name
   * (null before its first run or when the database is down). Here the jobs are Cron Triggers of this Worker, so
   * "configured" means the job is wired to a trigger in this build.
   */
  settlementKeeper: {
    [jobFlag: string]: boolean | Record<string, JobRunView | null>;
    databaseConnected: boolean;
    jobs: Record<string, JobRunView | null>;
  };
  /** Each configured program and its program-wide accounts: found and decoded (cached for a minute). */
  programs: ProgramsHealth;
}

/**
 * Live health: one getBalance (its context gives the slot) and a few small queries, in parallel; no failure is fatal
 * to the answer. `rails`: the app's; their reports, program checks and Cron jobs are the rail parts of the answer.
 */
export async function buildHealthReport(
  config: Config,
  db: D1Database | undefined,
  rails: readonly RailModule[],
): Promise<HealthReport> {
  const exposures = rails.flatMap((rail) => (rail.exposure ? [rail.exposure] : []));
  const scheduledJobNames = Object.values(jobsByCron(rails)).flatMap((jobs) => jobs.map((job) => job.name));
  const [reading, database, railReports, jobRuns, programs, exposure] = await Promise.all([
    readFeePayerBalance(config, HEALTH_READING_MAX_AGE_MS, Math.min(config.rpcTimeoutMs, HEALTH_RPC_TIMEOUT_MS)).catch(
      () => null,
    ),
    probeDatabase(db),
    Promise.all(rails.map((rail) => rail.health?.report?.(config, db) ?? Promise.resolve({}))),
    db ? lastJobRuns(db).catch(() => null) : Promise.resolve(null),
    readProgramsHealth(config, rails),
    db ? readExposure(config, db, exposures).catch(() => null) : Promise.resolve(null),
  ]);
  const balance = balanceView(config, reading);
  const reachable = reading !== null && database !== "error" && programs.ok !== false;
  return {
    status:
      balance.state === "below_minimum" || balance.state === "below_settle_floor"
        ? "degraded"
        : reachable
          ? "ok"
          : "warning",
    schemaVersion: SCHEMA_VERSION,
    database,
    solanaRpc: reading === null ? "error" : "connected",
    solanaSlot: reading?.slot ?? null,
    environment: config.environment,
    solanaNetwork: config.cluster,
    network: config.network,
    solanaWalletRpcUrl: redactRpcUrl(config.walletRpcUrl),
    feePayer: config.feePayer.address,
    feePayerBalance: balance,
    feePayerExposure: exposure && exposureHealth(config, exposure, reading?.lamports ?? null, exposures),
    ...Object.assign({}, ...railReports),
    settlementKeeper: {
      ...Object.fromEntries(
        rails.flatMap((rail) =>
          Object.entries(rail.health?.jobFlags ?? {}).map(([flag, job]) => [flag, scheduledJobNames.includes(job)]),
        ),
      ),
      databaseConnected: database === "connected",
      jobs: Object.fromEntries(
        scheduledJobNames.map((name) => [name, jobRunView(jobRuns?.find((row) => row.job === name))]),
      ),
    },
    programs,
  };
}

function balanceView(config: Config, reading: FeePayerBalanceReading | null): HealthReport["feePayerBalance"] {
  const { minLamports, settleFloorLamports } = config.feePayerFloors;
  const lamports = reading?.lamports ?? null;
  const state =
    lamports === null
      ? "unknown"
      : lamports < settleFloorLamports
        ? "below_settle_floor"
        : lamports < minLamports
          ? "below_minimum"
          : "ok";
  const belowFloor =
    state === "below_settle_floor"
      ? "SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS"
      : state === "below_minimum"
        ? "SVC_FEE_PAYER_MIN_LAMPORTS"
        : null;
  return {
    lamports: lamports === null ? null : lamports.toString(),
    readAt: reading ? new Date(reading.readAtMs).toISOString() : null,
    minLamports: minLamports.toString(),
    settleFloorLamports: settleFloorLamports.toString(),
    state,
    belowFloor,
  };
}

function jobRunView(row: JobRunRow | undefined): JobRunView | null {
  if (!row) return null;
  return {
    at: new Date(row.finishedAtMs).toISOString(),
    startedAt: new Date(row.startedAtMs).toISOString(),
    trigger: row.trigger,
    outcome: row.outcome,
    lamportsSpent: row.lamportsSpent,
    detail: row.detail,
  };
}
