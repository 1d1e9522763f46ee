-- Closed value sets (src/store/states.ts) as CHECKs: escrow_watch.state, upto_channels.state and job_runs.outcome.
-- SQLite (D1) cannot add a CHECK to an existing table, so each table is rebuilt and its rows copied. Every value the
-- code has written is in its set (keeper rows: open, closed, dropped, stuck; upto also opening and voided; job runs:
-- ok, partial, paused, error), so the copy keeps every row. No table here has a foreign key.
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
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	CONSTRAINT "escrow_watch_state_check" CHECK(state IN ('open', 'closed', 'dropped', 'stuck'))
);
--> statement-breakpoint
INSERT INTO `__new_escrow_watch`("payment_pda", "funding_signature", "funding_blockhash", "sponsored_payer", "state", "next_check_at_ms", "failures", "claim_id", "claim_expires_at_ms", "last_action", "last_signature", "last_outcome", "created_at_ms", "updated_at_ms") SELECT "payment_pda", "funding_signature", "funding_blockhash", "sponsored_payer", "state", "next_check_at_ms", "failures", "claim_id", "claim_expires_at_ms", "last_action", "last_signature", "last_outcome", "created_at_ms", "updated_at_ms" FROM `escrow_watch`;--> statement-breakpoint
DROP TABLE `escrow_watch`;--> statement-breakpoint
ALTER TABLE `__new_escrow_watch` RENAME TO `escrow_watch`;--> statement-breakpoint
CREATE INDEX `escrow_watch_due_idx` ON `escrow_watch` (`state`,`failures`,`next_check_at_ms`);--> statement-breakpoint
CREATE INDEX `escrow_watch_purge_idx` ON `escrow_watch` (`state`,`updated_at_ms`);--> statement-breakpoint
CREATE TABLE `__new_job_runs` (
	`job` text PRIMARY KEY NOT NULL,
	`trigger` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`lamports_spent` text NOT NULL,
	`detail` text,
	CONSTRAINT "job_runs_outcome_check" CHECK(outcome IN ('ok', 'partial', 'paused', 'error'))
);
--> statement-breakpoint
INSERT INTO `__new_job_runs`("job", "trigger", "started_at_ms", "finished_at_ms", "outcome", "lamports_spent", "detail") SELECT "job", "trigger", "started_at_ms", "finished_at_ms", "outcome", "lamports_spent", "detail" FROM `job_runs`;--> statement-breakpoint
DROP TABLE `job_runs`;--> statement-breakpoint
ALTER TABLE `__new_job_runs` RENAME TO `job_runs`;--> statement-breakpoint
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
	`state` text DEFAULT 'open' NOT NULL,
	`next_check_at_ms` integer NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`keeper_claim_id` text,
	`keeper_claim_expires_at_ms` integer,
	`last_action` text,
	`last_signature` text,
	`last_outcome` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	CONSTRAINT "upto_channels_state_check" CHECK(state IN ('opening', 'open', 'closed', 'dropped', 'stuck', 'voided'))
);
--> statement-breakpoint
INSERT INTO `__new_upto_channels`("channel_id", "open_message_hash", "open_blockhash", "payer", "pay_to", "asset", "token_program", "deposit", "expires_at", "claim_message_hash", "claim_amount", "claim_transaction", "rent_lamports", "state", "next_check_at_ms", "failures", "keeper_claim_id", "keeper_claim_expires_at_ms", "last_action", "last_signature", "last_outcome", "created_at_ms", "updated_at_ms") SELECT "channel_id", "open_message_hash", "open_blockhash", "payer", "pay_to", "asset", "token_program", "deposit", "expires_at", "claim_message_hash", "claim_amount", "claim_transaction", "rent_lamports", "state", "next_check_at_ms", "failures", "keeper_claim_id", "keeper_claim_expires_at_ms", "last_action", "last_signature", "last_outcome", "created_at_ms", "updated_at_ms" FROM `upto_channels`;--> statement-breakpoint
DROP TABLE `upto_channels`;--> statement-breakpoint
ALTER TABLE `__new_upto_channels` RENAME TO `upto_channels`;--> statement-breakpoint
CREATE INDEX `upto_channels_due_idx` ON `upto_channels` (`state`,`failures`,`next_check_at_ms`);--> statement-breakpoint
CREATE INDEX `upto_channels_purge_idx` ON `upto_channels` (`state`,`updated_at_ms`);--> statement-breakpoint
CREATE INDEX `upto_channels_payer_idx` ON `upto_channels` (`payer`,`state`,`rent_lamports`);--> statement-breakpoint
CREATE INDEX `upto_channels_pay_to_idx` ON `upto_channels` (`pay_to`,`state`,`rent_lamports`);--> statement-breakpoint
CREATE INDEX `upto_channels_payer_opens_idx` ON `upto_channels` (`payer`,`created_at_ms`,`state`);--> statement-breakpoint
CREATE INDEX `upto_channels_rent_idx` ON `upto_channels` (`state`,`rent_lamports`);