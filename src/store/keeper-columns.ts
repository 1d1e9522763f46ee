import { sql } from "drizzle-orm";
import { check, integer, type SQLiteColumn, text } from "drizzle-orm/sqlite-core";
import { KEEPER_LOOK_OUTCOMES, oneOf } from "./states";

/**
 * The columns every keeper watch table ends with (store/keeper-queue.ts writes them): the keeper's last look — its
 * step, from the rail's closed set `actions`, the step's signature, what the look did and the same in words — and the
 * row's times.
 */
export function keeperLookColumns<const Actions extends readonly [string, ...string[]]>(actions: Actions) {
  return {
    /** The rail's step in the keeper's last look (`actions`), or none. */
    lastAction: text("last_action", { enum: actions }),
    lastSignature: text("last_signature"),
    /** KEEPER_LOOK_OUTCOMES (./states.ts): what the keeper's last look did; NULL before the first. */
    lastOutcome: text("last_outcome", { enum: KEEPER_LOOK_OUTCOMES }),
    /** The last look in words, for operators (migration 0015; the words last_outcome held before). */
    lastDetail: text("last_detail"),
    createdAtMs: integer("created_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
  };
}

/** The CHECKs of those columns' closed sets, named after the table (migration 0015). */
export function keeperLookChecks(
  tableName: string,
  columns: { lastAction: SQLiteColumn; lastOutcome: SQLiteColumn },
  actions: readonly string[],
) {
  return [
    check(`${tableName}_last_action_check`, sql.raw(oneOf(columns.lastAction.name, actions))),
    check(`${tableName}_last_outcome_check`, sql.raw(oneOf(columns.lastOutcome.name, KEEPER_LOOK_OUTCOMES))),
  ];
}
