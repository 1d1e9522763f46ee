/**
 * The write both keepers (escrow payouts, upto channel closes) make at the end of a run: each watched row's new state,
 * in one batch, and only where this run's claim still holds the row. The tables differ only in their column names.
 */

/**
 * What a keeper run decided for one watched row. State open: look again at nextCheckAtMs; closed: nothing left to do
 * (paid out, or the account is gone); dropped: not a funding this facilitator settled (never landed, failed, or not in
 * its ledger); stuck: gave up after the attempt cap.
 */
export interface KeeperOutcome {
  state: "open" | "closed" | "dropped" | "stuck";
  nextCheckAtMs: number;
  /** Consecutive checks without progress, after this one. */
  failures: number;
  action: string;
  signature: string | null;
  outcome: string;
  /** A sent transaction keeps the claim until it expires, so no other run re-sends before the chain has answered. */
  keepClaim: boolean;
}

/** A keeper's watch table: fixed identifiers of our own schema, never caller input. */
export interface KeeperTable {
  table: string;
  keyColumn: string;
  claimColumn: string;
  claimExpiresColumn: string;
}

export async function recordKeeperOutcomes(d1: D1Database, where: KeeperTable, claimId: string, outcomes: readonly (KeeperOutcome & { key: string })[], nowMs: number): Promise<void> {
  if (outcomes.length === 0) return;
  const { table, keyColumn, claimColumn, claimExpiresColumn } = where;
  const update = d1.prepare(
    `UPDATE ${table} SET state = ?1, next_check_at_ms = ?2, failures = ?3, last_action = ?4, last_signature = COALESCE(?5, last_signature),
       last_outcome = ?6, updated_at_ms = ?7,
       ${claimColumn} = CASE WHEN ?8 THEN ${claimColumn} ELSE NULL END,
       ${claimExpiresColumn} = CASE WHEN ?8 THEN ${claimExpiresColumn} ELSE NULL END
     WHERE ${keyColumn} = ?9 AND ${claimColumn} = ?10`,
  );
  await d1.batch(outcomes.map((o) => update.bind(o.state, o.nextCheckAtMs, o.failures, o.action, o.signature, o.outcome, nowMs, o.keepClaim ? 1 : 0, o.key, claimId)));
}
