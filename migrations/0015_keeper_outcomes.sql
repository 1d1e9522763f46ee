-- The keepers' watch rows take closed sets (src/store/states.ts KEEPER_LOOK_OUTCOMES; each rail's keeper actions in
-- src/rails/<scheme>/store/states.ts) as CHECKs on escrow_watch and upto_channels: last_outcome says by value what the
-- last look did, last_action which step it took (or none); the words last_outcome held until now move to the new
-- last_detail column, unchanged, so operators keep every word. SQLite (D1) cannot add a CHECK to an existing table, so
-- both tables are rebuilt and their rows copied, mapping each row's words onto the set as the keepers wrote them
-- (src/jobs/keeper/run-keeper.ts and the rails' keepers): a dropped row is dropped; a landed step's result (released,
-- refunded, closed, reclaimed, written with the step's action) is landed; "sent, not confirmed within this run" is
-- unconfirmed; "preflight refused: …" refused and "failed on chain: …" failed, also after "gave up after N attempts: ";
-- the fee payer's floor and budget caps (fee_payer_…) and the payout accounts read again just before the send are
-- held; a step that could not be taken (the escrow, the mint, the recipient's token account, the channel's split, the
-- buyer's refund account), or given up, is skipped. Words no keeper wrote fall back on the row's state: closed → gone,
-- stuck → skipped, open or opening → waiting, dropped or voided → dropped. An action outside a rail's set (none was
-- written) becomes none, and its name is appended to last_detail. No trigger, view or foreign key names either table
-- (the triggers of 0005, which kept drizzle-kit's rebuild of providers out of 0014, name only the directory's tables),
-- so drizzle-kit's create-new-then-rename rebuild runs as generated, and both tables' indexes are created again after
-- it. Edited after drizzle-kit: the copy maps the columns as above instead of reading a last_detail the old tables do
-- not have, and its foreign-key PRAGMAs are dropped (as in 0012 and 0013). D1 refuses a LIKE pattern longer than 50
-- bytes ("LIKE or GLOB pattern too complex"), so each pattern matches a short, distinctive part of the words.
CREATE TABLE `__new_escrow_watch` (
	`payment_pda` text PRIMARY KEY NOT NULL,
	`funding_signature` text NOT NULL,
	`funding_blockhash` text,
	`sponsored_payer` text,
	`state` text DEFAULT 'open' NOT NULL,
	`next_check_at_ms` integer NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`claim_id` text,
	`claim_expires_at_ms` integer,
	`last_action` text,
	`last_signature` text,
	`last_outcome` text,
	`last_detail` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	CONSTRAINT "escrow_watch_state_check" CHECK(state IN ('open', 'closed', 'dropped', 'stuck')),
	CONSTRAINT "escrow_watch_last_action_check" CHECK(last_action IN ('release', 'refund', 'close', 'none')),
	CONSTRAINT "escrow_watch_last_outcome_check" CHECK(last_outcome IN ('landed', 'unconfirmed', 'waiting', 'held', 'gone', 'dropped', 'skipped', 'refused', 'failed'))
);
--> statement-breakpoint
INSERT INTO `__new_escrow_watch`("payment_pda", "funding_signature", "funding_blockhash", "sponsored_payer", "state", "next_check_at_ms", "failures", "claim_id", "claim_expires_at_ms", "last_action", "last_signature", "last_outcome", "last_detail", "created_at_ms", "updated_at_ms")
SELECT "payment_pda", "funding_signature", "funding_blockhash", "sponsored_payer", "state", "next_check_at_ms", "failures", "claim_id", "claim_expires_at_ms",
  CASE WHEN "last_action" IS NULL OR "last_action" IN ('release', 'refund', 'close', 'none') THEN "last_action" ELSE 'none' END,
  "last_signature",
  CASE
    WHEN "last_outcome" IS NULL THEN NULL
    WHEN "state" = 'dropped' THEN 'dropped'
    WHEN "last_outcome" IN ('released', 'refunded', 'closed', 'reclaimed') AND "last_action" IN ('release', 'refund', 'close', 'none') AND "last_action" <> 'none' THEN 'landed'
    WHEN "last_outcome" = 'sent, not confirmed within this run' THEN 'unconfirmed'
    WHEN "last_outcome" LIKE 'preflight refused: %' OR "last_outcome" LIKE 'gave up after % attempts: preflight refused: %' THEN 'refused'
    WHEN "last_outcome" LIKE 'failed on chain: %' OR "last_outcome" LIKE 'gave up after % attempts: failed on chain: %' THEN 'failed'
    WHEN "last_outcome" LIKE 'fee_payer_%' OR "last_outcome" LIKE '%(read again just before sending)%'
      OR "last_outcome" LIKE 'a payout already created recipient token %' THEN 'held'
    WHEN "last_outcome" LIKE 'gave up after % attempts: %' OR "last_outcome" LIKE 'payment escrow % is not the escrow of mint %'
      OR "last_outcome" LIKE 'mint % is not a token mint on this cluster' OR "last_outcome" LIKE 'mint % not found'
      OR "last_outcome" LIKE 'recipient token account % does not exist yet%' OR "last_outcome" LIKE 'channel % does not commit its split to %'
      OR "last_outcome" LIKE '%; waiting for the buyer to fix it' THEN 'skipped'
    WHEN "state" = 'closed' THEN 'gone'
    WHEN "state" = 'stuck' THEN 'skipped'
    WHEN "state" IN ('open', 'opening') THEN 'waiting'
    ELSE 'dropped'
  END,
  CASE WHEN "last_action" IS NULL OR "last_action" IN ('release', 'refund', 'close', 'none') THEN "last_outcome"
    ELSE ltrim(COALESCE("last_outcome", '') || ' (last action: ' || "last_action" || ')') END,
  "created_at_ms", "updated_at_ms"
FROM `escrow_watch`;--> statement-breakpoint
DROP TABLE `escrow_watch`;--> statement-breakpoint
ALTER TABLE `__new_escrow_watch` RENAME TO `escrow_watch`;--> statement-breakpoint
CREATE INDEX `escrow_watch_due_idx` ON `escrow_watch` (`state`,`failures`,`next_check_at_ms`);--> statement-breakpoint
CREATE INDEX `escrow_watch_purge_idx` ON `escrow_watch` (`state`,`updated_at_ms`);--> statement-breakpoint
CREATE TABLE `__new_upto_channels` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`open_message_hash` text NOT NULL,
	`open_blockhash` text NOT NULL,
	`payer` text NOT NULL,
	`pay_to` text NOT NULL,
	`asset` text NOT NULL,
	`token_program` text NOT NULL,
	`deposit` text NOT NULL,
	`expires_at` integer NOT NULL,
	`claim_message_hash` text,
	`claim_amount` text,
	`claim_transaction` text,
	`rent_lamports` integer DEFAULT 4711920 NOT NULL,
	`fee_payer` text,
	`state` text DEFAULT 'open' NOT NULL,
	`next_check_at_ms` integer NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`keeper_claim_id` text,
	`keeper_claim_expires_at_ms` integer,
	`last_action` text,
	`last_signature` text,
	`last_outcome` text,
	`last_detail` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	CONSTRAINT "upto_channels_state_check" CHECK(state IN ('opening', 'open', 'closed', 'dropped', 'stuck', 'voided')),
	CONSTRAINT "upto_channels_last_action_check" CHECK(last_action IN ('seal_and_distribute', 'seal_expired_and_distribute', 'distribute', 'reclaim', 'none')),
	CONSTRAINT "upto_channels_last_outcome_check" CHECK(last_outcome IN ('landed', 'unconfirmed', 'waiting', 'held', 'gone', 'dropped', 'skipped', 'refused', 'failed'))
);
--> statement-breakpoint
INSERT INTO `__new_upto_channels`("channel_id", "open_message_hash", "open_blockhash", "payer", "pay_to", "asset", "token_program", "deposit", "expires_at", "claim_message_hash", "claim_amount", "claim_transaction", "rent_lamports", "fee_payer", "state", "next_check_at_ms", "failures", "keeper_claim_id", "keeper_claim_expires_at_ms", "last_action", "last_signature", "last_outcome", "last_detail", "created_at_ms", "updated_at_ms")
SELECT "channel_id", "open_message_hash", "open_blockhash", "payer", "pay_to", "asset", "token_program", "deposit", "expires_at", "claim_message_hash", "claim_amount", "claim_transaction", "rent_lamports", "fee_payer", "state", "next_check_at_ms", "failures", "keeper_claim_id", "keeper_claim_expires_at_ms",
  CASE WHEN "last_action" IS NULL OR "last_action" IN ('seal_and_distribute', 'seal_expired_and_distribute', 'distribute', 'reclaim', 'none') THEN "last_action" ELSE 'none' END,
  "last_signature",
  CASE
    WHEN "last_outcome" IS NULL THEN NULL
    WHEN "state" = 'dropped' THEN 'dropped'
    WHEN "last_outcome" IN ('released', 'refunded', 'closed', 'reclaimed') AND "last_action" IN ('seal_and_distribute', 'seal_expired_and_distribute', 'distribute', 'reclaim', 'none') AND "last_action" <> 'none' THEN 'landed'
    WHEN "last_outcome" = 'sent, not confirmed within this run' THEN 'unconfirmed'
    WHEN "last_outcome" LIKE 'preflight refused: %' OR "last_outcome" LIKE 'gave up after % attempts: preflight refused: %' THEN 'refused'
    WHEN "last_outcome" LIKE 'failed on chain: %' OR "last_outcome" LIKE 'gave up after % attempts: failed on chain: %' THEN 'failed'
    WHEN "last_outcome" LIKE 'fee_payer_%' OR "last_outcome" LIKE '%(read again just before sending)%'
      OR "last_outcome" LIKE 'a payout already created recipient token %' THEN 'held'
    WHEN "last_outcome" LIKE 'gave up after % attempts: %' OR "last_outcome" LIKE 'payment escrow % is not the escrow of mint %'
      OR "last_outcome" LIKE 'mint % is not a token mint on this cluster' OR "last_outcome" LIKE 'mint % not found'
      OR "last_outcome" LIKE 'recipient token account % does not exist yet%' OR "last_outcome" LIKE 'channel % does not commit its split to %'
      OR "last_outcome" LIKE '%; waiting for the buyer to fix it' THEN 'skipped'
    WHEN "state" = 'closed' THEN 'gone'
    WHEN "state" = 'stuck' THEN 'skipped'
    WHEN "state" IN ('open', 'opening') THEN 'waiting'
    ELSE 'dropped'
  END,
  CASE WHEN "last_action" IS NULL OR "last_action" IN ('seal_and_distribute', 'seal_expired_and_distribute', 'distribute', 'reclaim', 'none') THEN "last_outcome"
    ELSE ltrim(COALESCE("last_outcome", '') || ' (last action: ' || "last_action" || ')') END,
  "created_at_ms", "updated_at_ms"
FROM `upto_channels`;--> statement-breakpoint
DROP TABLE `upto_channels`;--> statement-breakpoint
ALTER TABLE `__new_upto_channels` RENAME TO `upto_channels`;--> statement-breakpoint
CREATE INDEX `upto_channels_due_idx` ON `upto_channels` (`state`,`failures`,`next_check_at_ms`);--> statement-breakpoint
CREATE INDEX `upto_channels_purge_idx` ON `upto_channels` (`state`,`updated_at_ms`);--> statement-breakpoint
CREATE INDEX `upto_channels_payer_idx` ON `upto_channels` (`payer`,`state`,`rent_lamports`);--> statement-breakpoint
CREATE INDEX `upto_channels_pay_to_idx` ON `upto_channels` (`pay_to`,`state`,`rent_lamports`);--> statement-breakpoint
CREATE INDEX `upto_channels_payer_opens_idx` ON `upto_channels` (`payer`,`created_at_ms`,`state`);--> statement-breakpoint
CREATE INDEX `upto_channels_rent_idx` ON `upto_channels` (`state`,`rent_lamports`);