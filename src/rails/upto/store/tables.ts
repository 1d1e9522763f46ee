import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { keeperLookChecks, keeperLookColumns } from "../../../store/keeper-columns";
import { oneOf } from "../../../store/states";
import { UPTO_CHANNEL_STATES, UPTO_KEEPER_ACTIONS } from "./states";

/**
 * The upto rail's D1 tables, with the same conventions as src/store/schema.ts (decimal-string amounts, unix ms times).
 * drizzle.config.ts generates the migrations from that file and every rail's tables.ts.
 */

/** upto payment channels this facilitator opened as rent payer (0010): claim bytes and the keeper's queue. */
export const uptoChannels = sqliteTable(
  "upto_channels",
  {
    channelId: text("channel_id").primaryKey(),
    /** Ledger key (settlements.message_hash) of the deposit that opened the channel. */
    openMessageHash: text("open_message_hash").notNull(),
    openBlockhash: text("open_blockhash").notNull(),
    payer: text("payer").notNull(),
    payTo: text("pay_to").notNull(),
    asset: text("asset").notNull(),
    tokenProgram: text("token_program").notNull(),
    deposit: text("deposit").notNull(),
    /** The payload's expiresAt (unix seconds): no voucher settles after it. */
    expiresAt: integer("expires_at").notNull(),
    /**
     * The one claim (or cancel) transaction signed for this channel: its ledger key, amount and signed bytes (base64).
     */
    claimMessageHash: text("claim_message_hash"),
    claimAmount: text("claim_amount"),
    claimTransaction: text("claim_transaction"),
    /**
     * Lamports the fee payer fronts as rent for the channel and its escrow token account, back when the channel closes.
     * The exposure budget (src/chain/fee-payer-budget/) counts it while the row is live. Rows older than 0011 get the
     * SPL figure.
     */
    rentLamports: integer("rent_lamports").notNull().default(4_711_920),
    /** The fee payer that fronted the rent (0013; null on rows written before: the key of that time). */
    feePayer: text("fee_payer"),
    /**
     * opening (written before the Open is sent; not queued) | open (the keeper's queue) | closed | dropped | stuck |
     * voided (the open never reached the cluster: refused at preflight, or expired unseen)
     */
    state: text("state", { enum: UPTO_CHANNEL_STATES }).notNull().default("open"),
    nextCheckAtMs: integer("next_check_at_ms").notNull(),
    failures: integer("failures").notNull().default(0),
    keeperClaimId: text("keeper_claim_id"),
    keeperClaimExpiresAtMs: integer("keeper_claim_expires_at_ms"),
    ...keeperLookColumns(UPTO_KEEPER_ACTIONS),
  },
  (table) => [
    index("upto_channels_due_idx").on(table.state, table.failures, table.nextCheckAtMs),
    index("upto_channels_purge_idx").on(table.state, table.updatedAtMs),
    // The exposure budget's caps per buyer wallet, per payTo, per hour and in total (0011): covering, so a booking's
    // sums and counts read the index alone.
    index("upto_channels_payer_idx").on(table.payer, table.state, table.rentLamports),
    index("upto_channels_pay_to_idx").on(table.payTo, table.state, table.rentLamports),
    index("upto_channels_payer_opens_idx").on(table.payer, table.createdAtMs, table.state),
    index("upto_channels_rent_idx").on(table.state, table.rentLamports),
    check("upto_channels_state_check", sql.raw(oneOf(table.state.name, UPTO_CHANNEL_STATES))),
    ...keeperLookChecks("upto_channels", table, UPTO_KEEPER_ACTIONS),
  ],
);
