import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { keeperLookChecks, keeperLookColumns } from "../../../store/keeper-columns";
import { oneOf } from "../../../store/states";
import { ESCROW_KEEPER_ACTIONS, ESCROW_WATCH_STATES } from "./states";

/**
 * The sla-escrow rail's D1 tables, with the same conventions as src/store/schema.ts (decimal-string amounts, unix ms
 * times). drizzle.config.ts generates the migrations from that file and every rail's tables.ts.
 */

/**
 * Escrow keeper: sla-escrow fundings this facilitator settled and the cluster accepted, watched until the Payment is
 * released or refunded (claims keep runs apart). A pointer only: every fact of the payment is read from the chain.
 */
export const escrowWatch = sqliteTable(
  "escrow_watch",
  {
    paymentPda: text("payment_pda").primaryKey(),
    fundingSignature: text("funding_signature").notNull(),
    /** The funding's recent blockhash: once it expired, a funding that never landed never will. */
    fundingBlockhash: text("funding_blockhash"),
    /** The buyer of a sponsored funding (the fee payer paid its fee), else null. */
    sponsoredPayer: text("sponsored_payer"),
    /** ESCROW_WATCH_STATES (./states.ts): open | closed | dropped | stuck */
    state: text("state", { enum: ESCROW_WATCH_STATES }).notNull().default("open"),
    nextCheckAtMs: integer("next_check_at_ms").notNull(),
    /** Consecutive checks that could not make progress (backoff doubles with each; capped). */
    failures: integer("failures").notNull().default(0),
    claimId: text("claim_id"),
    claimExpiresAtMs: integer("claim_expires_at_ms"),
    ...keeperLookColumns(ESCROW_KEEPER_ACTIONS),
  },
  (table) => [
    index("escrow_watch_due_idx").on(table.state, table.failures, table.nextCheckAtMs),
    index("escrow_watch_purge_idx").on(table.state, table.updatedAtMs),
    check("escrow_watch_state_check", sql.raw(oneOf(table.state.name, ESCROW_WATCH_STATES))),
    ...keeperLookChecks("escrow_watch", table, ESCROW_KEEPER_ACTIONS),
  ],
);

/** Sponsored sla-escrow fundings that executed and failed on chain (0007): the fee payer paid; capped per payer. */
export const sponsoredFundingFailures = sqliteTable(
  "sponsored_funding_failures",
  {
    signature: text("signature").primaryKey(),
    payer: text("payer").notNull(),
    failedAtMs: integer("failed_at_ms").notNull(),
  },
  (table) => [index("sponsored_funding_failures_payer_idx").on(table.payer, table.failedAtMs)],
);
