import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import {
  EXPOSURE_POOLS,
  EXPOSURE_STATES,
  JOB_RUN_OUTCOMES,
  oneOf,
  PAYMENT_ATTEMPT_OUTCOMES,
  PAYMENT_ATTEMPT_ROLES,
} from "./states";

/**
 * The core's D1 tables. Amounts are decimal strings (u64 does not fit SQLite's signed 64-bit integer);
 * times are unix milliseconds unless the name says otherwise. A rail's own tables live in its folder
 * (src/rails/<scheme>/store/tables.ts); drizzle.config.ts generates the migrations from this file and those.
 */

/** Operator parameters: a row overrides the env var of the same name (docs/facilitator-spec.md §5, §8). */
export const parameters = sqliteTable("parameters", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAtMs: integer("updated_at_ms").notNull(),
});

/**
 * The settlement ledger: one row per payment transaction, keyed by the transaction's message hash, so that
 * retries and concurrent settles across isolates and edge locations converge on one on-chain submission.
 */
export const settlements = sqliteTable(
  "settlements",
  {
    messageHash: text("message_hash").primaryKey(),
    signature: text("signature").notNull(),
    /** submitting → confirmed | failed; `pending` = sent, confirmation not yet seen. */
    state: text("state", { enum: ["submitting", "pending", "confirmed", "failed"] }).notNull(),
    scheme: text("scheme").notNull(),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    payTo: text("pay_to").notNull(),
    merchantWallet: text("merchant_wallet"),
    asset: text("asset").notNull(),
    amount: text("amount").notNull(),
    lastValidBlockHeight: text("last_valid_block_height"),
    errorReason: text("error_reason"),
    errorMessage: text("error_message"),
    /**
     * Holder of the submit lease: only the holder sends; others wait or reconcile. Once success is reported: the call
     * that reported it.
     */
    leaseId: text("lease_id"),
    leaseExpiresAtMs: integer("lease_expires_at_ms"),
    /** The accepted line's maxTimeoutSeconds: how long a seller may retry with its correlation id. */
    maxTimeoutSeconds: integer("max_timeout_seconds").notNull().default(60),
    confirmedAtMs: integer("confirmed_at_ms"),
    /** Set by the one /settle answer that reported success (exactly one per payment). */
    successReportedAtMs: integer("success_reported_at_ms"),
    /** The X-Correlation-ID header of that call; a retry with the same header may hear success again. */
    successCorrelationId: text("success_correlation_id"),
    /** The x402 `payment-identifier` extension's id, when the payment carried one (unique per payTo). */
    paymentId: text("payment_id"),
    createdAtMs: integer("created_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    /**
     * The settle ledger's Durable Object that holds this payment (SVC_SETTLE_LEDGER=object): written with the claim, so
     * a settle arriving at another object is sent to this one. NULL: the D1 ledger's row (the first object to claim it
     * after a switch of ledgers takes it over).
     */
    ledgerObject: text("ledger_object"),
  },
  (t) => [
    index("settlements_pay_to_idx").on(t.payTo, t.state, t.updatedAtMs),
    uniqueIndex("settlements_payment_id_idx").on(t.payTo, t.paymentId).where(sql`${t.paymentId} IS NOT NULL`),
    index("settlements_signature_idx").on(t.signature),
    index("settlements_sweep_idx").on(t.scheme, t.state, t.updatedAtMs),
    // 0018: a buyer's payments that failed on chain in the last day (the exposure budget's failure cap).
    index("settlements_payer_idx").on(t.payer, t.state, t.updatedAtMs),
  ],
);

/** Every verify and settle attempt, for audit and the seller's payment history. */
export const paymentAttempts = sqliteTable(
  "payment_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind", { enum: ["verify", "settle"] }).notNull(),
    correlationId: text("correlation_id").notNull(),
    scheme: text("scheme"),
    network: text("network"),
    payer: text("payer"),
    payTo: text("pay_to"),
    merchantWallet: text("merchant_wallet"),
    asset: text("asset"),
    amount: text("amount"),
    /** PAYMENT_ATTEMPT_OUTCOMES (./states.ts); why it failed is `reason`. */
    outcome: text("outcome", { enum: PAYMENT_ATTEMPT_OUTCOMES }).notNull(),
    reason: text("reason"),
    signature: text("signature"),
    startedAtMs: integer("started_at_ms").notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** PAYMENT_ATTEMPT_ROLES (./states.ts): a sale, or a deposit the later claim turns into one. */
    role: text("role", { enum: PAYMENT_ATTEMPT_ROLES }),
  },
  (t) => [
    index("payment_attempts_merchant_idx").on(t.merchantWallet, t.id),
    index("payment_attempts_pay_to_idx").on(t.payTo, t.id),
    check("payment_attempts_outcome_check", sql.raw(oneOf(t.outcome.name, PAYMENT_ATTEMPT_OUTCOMES))),
    check(
      "payment_attempts_role_check",
      sql.raw(`${t.role.name} IS NULL OR ${oneOf(t.role.name, PAYMENT_ATTEMPT_ROLES)}`),
    ),
  ],
);

/** Consumed wallet challenges: the unique key makes consumption atomic across isolates. */
export const consumedChallenges = sqliteTable("consumed_challenges", {
  nonce: text("nonce").primaryKey(),
  wallet: text("wallet").notNull(),
  action: text("action").notNull(),
  expiresAtMs: integer("expires_at_ms").notNull(),
  consumedAtMs: integer("consumed_at_ms").notNull(),
});

/** Verified sellers (merchant origins). */
export const providers = sqliteTable(
  "providers",
  {
    walletPubkey: text("wallet_pubkey").primaryKey(),
    settlementMode: text("settlement_mode", { enum: ["native_sol", "spl"] }).notNull(),
    splMint: text("spl_mint"),
    /** Null for a seller registered with the exact rail's wallet payTo form (paid at its own wallet, no vault). */
    splitVaultPda: text("split_vault_pda"),
    serviceUrl: text("service_url"),
    displayName: text("display_name"),
    description: text("description"),
    tagsJson: text("tags_json").notNull().default("[]"),
    serviceMetadataJson: text("service_metadata_json"),
    listingOptIn: integer("listing_opt_in", { mode: "boolean" }).notNull().default(false),
    registrationVerifiedAtMs: integer("registration_verified_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    retiredAtMs: integer("retired_at_ms"),
    // 0008_origin_proof_probe_queue.sql: the origin the wallet proved it controls, and when it was last checked.
    provenOrigin: text("proven_origin"),
    originProvenAtMs: integer("origin_proven_at_ms"),
  },
  (t) => [
    index("providers_listing_idx").on(t.retiredAtMs, t.listingOptIn, t.updatedAtMs),
    index("providers_cursor_idx").on(t.updatedAtMs, t.walletPubkey),
  ],
);

/** Payable resources registered by verified sellers, with their probe results. */
export const resources = sqliteTable(
  "resources",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    walletPubkey: text("wallet_pubkey").notNull(),
    resourceUrl: text("resource_url").notNull(),
    httpMethod: text("http_method").notNull().default("GET"),
    sellerResourceId: text("seller_resource_id"),
    title: text("title").notNull(),
    description: text("description"),
    useCase: text("use_case"),
    category: text("category"),
    tagsJson: text("tags_json").notNull().default("[]"),
    scheme: text("scheme").notNull(),
    network: text("network"),
    intentContractUrl: text("intent_contract_url"),
    merchantOrigin: text("merchant_origin"),
    listingOptIn: integer("listing_opt_in", { mode: "boolean" }).notNull().default(false),
    lastProbeAtMs: integer("last_probe_at_ms"),
    lastProbeOk: integer("last_probe_ok", { mode: "boolean" }).notNull().default(false),
    lastProbeStatus: integer("last_probe_status"),
    lastProbeError: text("last_probe_error"),
    registrationVerifiedAtMs: integer("registration_verified_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    retiredAtMs: integer("retired_at_ms"),
    // 0003_resource_directory.sql (the FTS5 table `resources_fts`, rebuilt by 0005_search_rank.sql, and every
    // trigger live only in SQL).
    lastProbeScheme: text("last_probe_scheme"),
    probeFailures: integer("probe_failures").notNull().default(0),
    lastProbeOkAtMs: integer("last_probe_ok_at_ms"),
    probeAcceptsJson: text("probe_accepts_json"),
    probeBazaarJson: text("probe_bazaar_json"),
    /** Gates 2-4 of docs/facilitator-spec.md §3.3; gate 1 (verified merchant) is joined from `providers`. */
    listed: integer("listed", { mode: "boolean" }).notNull().default(false),
    // 0005_search_rank.sql: all four gates (`listed` and a merchant not retired), written only by triggers;
    // the full-text row and `directory_counts` follow it.
    visible: integer("visible", { mode: "boolean" }).notNull().default(false),
    // 0008_origin_proof_probe_queue.sql: 0 = never probed, NULL = out of the probe queue; start of the failing run.
    nextProbeAtMs: integer("next_probe_at_ms").default(0),
    failingSinceMs: integer("failing_since_ms"),
  },
  (t) => [
    uniqueIndex("resources_owner_url_idx").on(t.walletPubkey, t.resourceUrl, t.httpMethod),
    index("resources_listing_idx").on(t.retiredAtMs, t.listingOptIn, t.lastProbeOk, t.updatedAtMs),
    index("resources_visible_cursor_idx").on(t.visible, t.updatedAtMs, t.id),
    index("resources_visible_category_idx").on(t.visible, t.category, t.updatedAtMs, t.id),
    index("resources_visible_scheme_idx").on(t.visible, t.scheme, t.updatedAtMs, t.id),
    index("resources_probe_queue_idx").on(t.nextProbeAtMs, t.id).where(sql`${t.retiredAtMs} IS NULL`),
  ],
);

/** Visible resources per scheme for /directory/stats, kept by triggers on `resources` (0005_search_rank.sql). */
export const directoryCounts = sqliteTable("directory_counts", {
  scheme: text("scheme").primaryKey(),
  visibleResources: integer("visible_resources").notNull().default(0),
});

/** Tags of visible resources in list order, kept by triggers on `resources` (0005_search_rank.sql). */
export const resourceTags = sqliteTable(
  "resource_tags",
  {
    tag: text("tag").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    resourceId: integer("resource_id").notNull(),
  },
  (t) => [
    index("resource_tags_cursor_idx").on(t.tag, t.updatedAtMs, t.resourceId),
    index("resource_tags_resource_idx").on(t.resourceId),
  ],
);

/** When the probe job last harvested each merchant's Seller Resource Manifest (0003_resource_directory.sql). */
export const manifestHarvests = sqliteTable("manifest_harvests", {
  walletPubkey: text("wallet_pubkey").primaryKey(),
  lastHarvestAtMs: integer("last_harvest_at_ms").notNull(),
  lastError: text("last_error"),
});
/**
 * The last run of each scheduled job (0006_job_runs.sql), one row per job, for /health: when, how it ended and
 * what the fee payer spent. Written by every real run, whether a Cron Trigger or an operator route started it.
 */
export const jobRuns = sqliteTable(
  "job_runs",
  {
    /** sweep | escrow-keeper | probe | retention | search-index-merge */
    job: text("job").primaryKey(),
    /** "cron", "http" (operator route) or "http-cron" (GET /sweep-cron). */
    trigger: text("trigger").notNull(),
    startedAtMs: integer("started_at_ms").notNull(),
    finishedAtMs: integer("finished_at_ms").notNull(),
    /**
     * JOB_RUN_OUTCOMES: ok | partial (some items failed) | paused (fee payer below its minimum: nothing spent) | error
     * (the run threw).
     */
    outcome: text("outcome", { enum: JOB_RUN_OUTCOMES }).notNull(),
    /** Lamports the fee payer spent in the run (decimal string; network fees and any account rent). */
    lamportsSpent: text("lamports_spent").notNull(),
    /** A short summary or the error / pause reason. */
    detail: text("detail"),
  },
  (table) => [check("job_runs_outcome_check", sql.raw(oneOf(table.outcome.name, JOB_RUN_OUTCOMES)))],
);

/**
 * The fee payer's exposure budget (0011, src/chain/fee-payer-budget/): one row per lamport amount it fronts or spends
 * beyond the network fee of a seller's payment, other than an upto channel's rent (kept on the channel's own row). Held
 * rows (rent expected back) count until returned or voided; spent rows count for 24 h against the daily caps.
 */
export const feePayerExposure = sqliteTable(
  "fee_payer_exposure",
  {
    /** The spend's own stable key (e.g. `jit_vault:<vault>`): booking the same spend again changes nothing. */
    bookingId: text("booking_id").primaryKey(),
    /** exact | sla-escrow | upto | sweep */
    rail: text("rail").notNull(),
    /** rent_held | rent_spent | sponsored_funding | network_fee | priority_fee */
    kind: text("kind").notNull(),
    /** The buyer wallet whose payment caused it (null for the operator's own jobs). */
    payer: text("payer"),
    /** The payTo / seller it served (null when none). */
    payTo: text("pay_to"),
    lamports: integer("lamports").notNull(),
    /** The fee payer that fronted or spent the lamports (0013; null on rows written before: the key of that time). */
    feePayer: text("fee_payer"),
    /** EXPOSURE_STATES (./states.ts): held | spent | returned | voided */
    state: text("state", { enum: EXPOSURE_STATES }).notNull(),
    bookedAtMs: integer("booked_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    /**
     * EXPOSURE_POOLS (./states.ts): whose daily budget it comes out of (0018; rows before it: buyers or jobs by kind).
     */
    pool: text("pool", { enum: EXPOSURE_POOLS }).notNull().default("jobs"),
    /** The payment whose ledger claim booked it (0018): the booking lives and dies with that claim. */
    settlementHash: text("settlement_hash"),
  },
  (table) => [
    index("fee_payer_exposure_payer_idx").on(table.payer, table.state, table.bookedAtMs),
    index("fee_payer_exposure_pay_to_idx").on(table.payTo, table.state, table.bookedAtMs),
    index("fee_payer_exposure_state_idx").on(table.state, table.bookedAtMs),
    index("fee_payer_exposure_pool_idx").on(table.pool, table.state, table.bookedAtMs),
    index("fee_payer_exposure_settlement_idx").on(table.settlementHash),
    check("fee_payer_exposure_state_check", sql.raw(oneOf(table.state.name, EXPOSURE_STATES))),
    check("fee_payer_exposure_pool_check", sql.raw(oneOf(table.pool.name, EXPOSURE_POOLS))),
  ],
);

/**
 * What was spent for good per hour (0018): per pool (`pool:<pool>`) and per proven seller (`seller:<wallet>`), kept by
 * triggers on fee_payer_exposure (migration 0018), so a cap over a whole pool or a busy seller's quota reads 24 or 25
 * rows, never the day's bookings. A rolling day counted by the hour: its oldest hour whole.
 */
export const feePayerSpendHours = sqliteTable(
  "fee_payer_spend_hours",
  {
    scope: text("scope").notNull(),
    hourMs: integer("hour_ms").notNull(),
    lamports: integer("lamports").notNull(),
  },
  (table) => [primaryKey({ columns: [table.scope, table.hourMs] })],
);
