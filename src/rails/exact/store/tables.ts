import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { oneOf } from "../../../store/states";
import { SWEEP_RAIL_OUTCOMES, SWEEP_RUN_OUTCOMES } from "./states";

/**
 * The exact rail's D1 tables, with the same conventions as src/store/schema.ts (decimal-string amounts, unix ms times).
 * drizzle.config.ts generates the migrations from that file and every rail's tables.ts.
 */

/** Per-rail sweep bookkeeping (cooldowns, last outcome). */
export const sweepState = sqliteTable(
  "sweep_state",
  {
    walletPubkey: text("wallet_pubkey").notNull(),
    /** "SOL" for the native rail, else the SPL mint. */
    rail: text("rail").notNull(),
    lastAttemptAtMs: integer("last_attempt_at_ms").notNull(),
    lastSignature: text("last_signature"),
    lastError: text("last_error"),
    /** The run holding the rail (migration 0003): only the holder sends; expired claims may be taken over. */
    claimId: text("claim_id"),
    claimExpiresAtMs: integer("claim_expires_at_ms"),
    /** SWEEP_RAIL_OUTCOMES (./states.ts): the plan item's status of the last real run; why it failed is last_error. */
    lastOutcome: text("last_outcome", { enum: SWEEP_RAIL_OUTCOMES }),
  },
  (t) => [
    primaryKey({ columns: [t.walletPubkey, t.rail] }),
    index("sweep_state_attempt_idx").on(t.lastAttemptAtMs),
    check("sweep_state_last_outcome_check", sql.raw(oneOf(t.lastOutcome.name, SWEEP_RAIL_OUTCOMES))),
  ],
);

/** One row per real sweep run (dry runs leave no trace), for /health and the operator. */
export const sweepRuns = sqliteTable(
  "sweep_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** "cron", "http" (POST /sweep) or "http-cron" (GET /sweep-cron). */
    trigger: text("trigger").notNull(),
    startedAtMs: integer("started_at_ms").notNull(),
    finishedAtMs: integer("finished_at_ms").notNull(),
    /**
     * SWEEP_RUN_OUTCOMES: ok | partial (some rails failed) | paused (fee payer below its minimum: nothing sent) | error
     * (the run stopped).
     */
    outcome: text("outcome", { enum: SWEEP_RUN_OUTCOMES }).notNull(),
    scanned: integer("scanned").notNull(),
    attempted: integer("attempted").notNull(),
    succeeded: integer("succeeded").notNull(),
    skipped: integer("skipped").notNull(),
    failed: integer("failed").notNull(),
    lamportsSpent: text("lamports_spent").notNull(),
  },
  (t) => [check("sweep_runs_outcome_check", sql.raw(oneOf(t.outcome.name, SWEEP_RUN_OUTCOMES)))],
);

/** Vaults the facilitator fronted (just-in-time provisioning), counted against a daily cap. */
export const jitProvisions = sqliteTable(
  "jit_provisions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** UTC day, YYYY-MM-DD. */
    day: text("day").notNull(),
    sellerWallet: text("seller_wallet").notNull(),
    asset: text("asset").notNull(),
    /** Set once the provisioning transaction was sent (rent spent): from then on the claim counts for its day. */
    signature: text("signature"),
    /** A claim without a signature past this time never spent anything and may be taken again. */
    claimExpiresAtMs: integer("claim_expires_at_ms").notNull().default(0),
    /** When the payment that needed the vault confirmed. */
    confirmedAtMs: integer("confirmed_at_ms"),
    createdAtMs: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("jit_provisions_seller_asset_idx").on(t.sellerWallet, t.asset),
    index("jit_provisions_day_idx").on(t.day),
  ],
);
