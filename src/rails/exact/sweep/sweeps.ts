import { desc } from "drizzle-orm";
import { database } from "../../../store/db";
import type { JobRunOutcome } from "../../../store/states";
import type { SweepRailOutcome } from "../store/states";
import { sweepRuns } from "../store/tables";

/**
 * Sweep bookkeeping in D1 (the only SQL of the sweep engine). Candidates come from the settle ledger
 * (read-only, existing columns only); claims and outcomes live in `sweep_state`, one row per seller rail.
 */

/** The address the ledger uses for native SOL; `sweep_state.rail` stores it as "SOL". */
const NATIVE_SOL_ASSET = "11111111111111111111111111111111";
const RAIL_OF_ASSET_SQL = `CASE WHEN s.asset = '${NATIVE_SOL_ASSET}' THEN 'SOL' ELSE s.asset END`;

export interface SweepCandidateRow {
  wallet: string;
  /** "SOL" or the SPL mint. */
  rail: string;
  lastSettledAtMs: number;
  lastAttemptAtMs: number | null;
}

export interface CandidateQuery {
  nowMs: number;
  /** Only rails with a confirmed settle at or after this time. */
  settledSinceMs: number;
  /** Only rails not attempted after this time. */
  attemptedBeforeMs: number;
  limit: number;
}

/**
 * Seller rails (merchant wallet + asset) with a confirmed `exact` settlement in the window, not attempted
 * within the cooldown and not held by a live claim, oldest attempt first (never attempted first of all).
 * Registration is not required: every seller paid through this facilitator gets its money out. A payment to the
 * seller's own wallet (payTo = merchant wallet) left nothing in a vault and is no candidate.
 */
export async function selectSweepCandidates(d1: D1Database, query: CandidateQuery): Promise<SweepCandidateRow[]> {
  const { results } = await d1
    .prepare(
      `SELECT s.merchant_wallet AS wallet, ${RAIL_OF_ASSET_SQL} AS rail,
              MAX(s.updated_at_ms) AS lastSettledAtMs, st.last_attempt_at_ms AS lastAttemptAtMs
       FROM settlements s
       LEFT JOIN sweep_state st ON st.wallet_pubkey = s.merchant_wallet AND st.rail = ${RAIL_OF_ASSET_SQL}
       WHERE s.scheme = 'exact' AND s.state = 'confirmed' AND s.updated_at_ms >= ?1 AND s.merchant_wallet IS NOT NULL
         AND s.pay_to <> s.merchant_wallet
         AND (st.last_attempt_at_ms IS NULL OR st.last_attempt_at_ms <= ?2)
         AND (st.claim_expires_at_ms IS NULL OR st.claim_expires_at_ms < ?3)
       GROUP BY s.merchant_wallet, s.asset
       ORDER BY COALESCE(st.last_attempt_at_ms, 0) ASC, lastSettledAtMs ASC
       LIMIT ?4`,
    )
    .bind(query.settledSinceMs, query.attemptedBeforeMs, query.nowMs, query.limit)
    .all<SweepCandidateRow>();
  return results;
}

export interface RailKey {
  wallet: string;
  rail: string;
}

/**
 * Claims rails for one run, atomically per rail: a rail is claimed only when nobody holds a live claim and its
 * last attempt is outside the cooldown, and claiming stamps the attempt time. So of two concurrent runs only one
 * gets a rail, and a run that claims reads balances after everyone before it finished with the rail.
 * One D1 batch (one subrequest). Returns the rails this run holds.
 */
export async function claimSweepRails(
  d1: D1Database,
  rails: readonly RailKey[],
  claim: { claimId: string; nowMs: number; expiresAtMs: number; attemptedBeforeMs: number },
): Promise<RailKey[]> {
  if (rails.length === 0) return [];
  const statement = d1.prepare(
    `INSERT INTO sweep_state (wallet_pubkey, rail, last_attempt_at_ms, claim_id, claim_expires_at_ms) VALUES (?1, ` +
      `?2, ?3, ?4, ?5)
     ON CONFLICT (wallet_pubkey, rail) DO UPDATE SET
       last_attempt_at_ms = excluded.last_attempt_at_ms, claim_id = excluded.claim_id, claim_expires_at_ms = ` +
      `excluded.claim_expires_at_ms
     WHERE sweep_state.last_attempt_at_ms <= ?6 AND (sweep_state.claim_expires_at_ms IS NULL OR ` +
      `sweep_state.claim_expires_at_ms < ?3)
     RETURNING wallet_pubkey AS wallet, rail`,
  );
  const results = await d1.batch<RailKey>(
    rails.map((r) =>
      statement.bind(r.wallet, r.rail, claim.nowMs, claim.claimId, claim.expiresAtMs, claim.attemptedBeforeMs),
    ),
  );
  return results.flatMap((r) => r.results);
}

export interface RailOutcome extends RailKey {
  outcome: SweepRailOutcome;
  signature: string | null;
  error: string | null;
}

export interface SweepRunRecord {
  trigger: string;
  startedAtMs: number;
  finishedAtMs: number;
  outcome: JobRunOutcome;
  scanned: number;
  attempted: number;
  succeeded: number;
  skipped: number;
  failed: number;
  lamportsSpent: bigint;
}

/** Records each held rail's outcome, releases this run's claims and appends the run summary: one D1 batch. */
export async function finishSweepRun(
  d1: D1Database,
  claimId: string,
  outcomes: readonly RailOutcome[],
  run: SweepRunRecord,
): Promise<void> {
  const release = d1.prepare(
    `UPDATE sweep_state SET last_outcome = ?1, last_signature = COALESCE(?2, last_signature), last_error = ?3,
            claim_id = NULL, claim_expires_at_ms = NULL
     WHERE wallet_pubkey = ?4 AND rail = ?5 AND claim_id = ?6`,
  );
  const insertRun = d1
    .prepare(
      `INSERT INTO sweep_runs (trigger, started_at_ms, finished_at_ms, outcome, scanned, attempted, succeeded, ` +
        `skipped, failed, lamports_spent)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    )
    .bind(
      run.trigger,
      run.startedAtMs,
      run.finishedAtMs,
      run.outcome,
      run.scanned,
      run.attempted,
      run.succeeded,
      run.skipped,
      run.failed,
      run.lamportsSpent.toString(),
    );
  await d1.batch([
    ...outcomes.map((o) => release.bind(o.outcome, o.signature, o.error, o.wallet, o.rail, claimId)),
    insertRun,
  ]);
}

export type SweepRunRow = typeof sweepRuns.$inferSelect;

export async function lastSweepRun(d1: D1Database): Promise<SweepRunRow | null> {
  const rows = await database(d1).select().from(sweepRuns).orderBy(desc(sweepRuns.id)).limit(1);
  return rows[0] ?? null;
}
