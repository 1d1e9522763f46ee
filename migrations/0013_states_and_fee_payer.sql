-- Closed value sets (src/store/states.ts) as CHECKs: payment_attempts.outcome, fee_payer_exposure.state,
-- sweep_state.last_outcome and sweep_runs.outcome; and the fee payer that fronted each exposure booking and each upto
-- channel's rent (fee_payer: with key rotation, several keys may have lamports out; null on rows written before).
-- SQLite (D1) cannot add a CHECK to an existing table, so each table is rebuilt and its rows copied. Every value the
-- code has written is in its set (payment attempts: settled, pending, failed, and a verify's valid, invalid; exposure:
-- held, spent, returned, voided; sweeps: ok, skipped, failed per rail, ok, partial, paused, error per run), so the copy
-- keeps every row. The AUTOINCREMENT tables keep their sequence, so a new id never repeats one already handed out
-- (the seller's payment history pages by id). No table here has a foreign key.
-- Edited after drizzle-kit: its rebuild copied the new fee_payer column from the old table (NULL instead), its
-- foreign-key PRAGMAs dropped (as in 0012), the sequence carried over.
CREATE TABLE `__new_fee_payer_exposure` (
	`booking_id` text PRIMARY KEY NOT NULL,
	`rail` text NOT NULL,
	`kind` text NOT NULL,
	`payer` text,
	`pay_to` text,
	`lamports` integer NOT NULL,
	`fee_payer` text,
	`state` text NOT NULL,
	`booked_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	CONSTRAINT "fee_payer_exposure_state_check" CHECK(state IN ('held', 'spent', 'returned', 'voided'))
);
--> statement-breakpoint
INSERT INTO `__new_fee_payer_exposure`("booking_id", "rail", "kind", "payer", "pay_to", "lamports", "fee_payer", "state", "booked_at_ms", "updated_at_ms") SELECT "booking_id", "rail", "kind", "payer", "pay_to", "lamports", NULL, "state", "booked_at_ms", "updated_at_ms" FROM `fee_payer_exposure`;--> statement-breakpoint
DROP TABLE `fee_payer_exposure`;--> statement-breakpoint
ALTER TABLE `__new_fee_payer_exposure` RENAME TO `fee_payer_exposure`;--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_payer_idx` ON `fee_payer_exposure` (`payer`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_pay_to_idx` ON `fee_payer_exposure` (`pay_to`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_state_idx` ON `fee_payer_exposure` (`state`,`booked_at_ms`);--> statement-breakpoint
ALTER TABLE `upto_channels` ADD `fee_payer` text;--> statement-breakpoint
CREATE TABLE `__new_payment_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`correlation_id` text NOT NULL,
	`scheme` text,
	`network` text,
	`payer` text,
	`pay_to` text,
	`merchant_wallet` text,
	`asset` text,
	`amount` text,
	`outcome` text NOT NULL,
	`reason` text,
	`signature` text,
	`started_at_ms` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	CONSTRAINT "payment_attempts_outcome_check" CHECK(outcome IN ('settled', 'pending', 'failed', 'valid', 'invalid'))
);
--> statement-breakpoint
INSERT INTO `__new_payment_attempts`("id", "kind", "correlation_id", "scheme", "network", "payer", "pay_to", "merchant_wallet", "asset", "amount", "outcome", "reason", "signature", "started_at_ms", "duration_ms") SELECT "id", "kind", "correlation_id", "scheme", "network", "payer", "pay_to", "merchant_wallet", "asset", "amount", "outcome", "reason", "signature", "started_at_ms", "duration_ms" FROM `payment_attempts`;--> statement-breakpoint
DELETE FROM sqlite_sequence WHERE name = '__new_payment_attempts';--> statement-breakpoint
INSERT INTO sqlite_sequence (name, seq) SELECT '__new_payment_attempts', seq FROM sqlite_sequence WHERE name = 'payment_attempts';--> statement-breakpoint
DROP TABLE `payment_attempts`;--> statement-breakpoint
ALTER TABLE `__new_payment_attempts` RENAME TO `payment_attempts`;--> statement-breakpoint
CREATE INDEX `payment_attempts_merchant_idx` ON `payment_attempts` (`merchant_wallet`,`id`);--> statement-breakpoint
CREATE INDEX `payment_attempts_pay_to_idx` ON `payment_attempts` (`pay_to`,`id`);--> statement-breakpoint
CREATE TABLE `__new_sweep_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`trigger` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`scanned` integer NOT NULL,
	`attempted` integer NOT NULL,
	`succeeded` integer NOT NULL,
	`skipped` integer NOT NULL,
	`failed` integer NOT NULL,
	`lamports_spent` text NOT NULL,
	CONSTRAINT "sweep_runs_outcome_check" CHECK(outcome IN ('ok', 'partial', 'paused', 'error'))
);
--> statement-breakpoint
INSERT INTO `__new_sweep_runs`("id", "trigger", "started_at_ms", "finished_at_ms", "outcome", "scanned", "attempted", "succeeded", "skipped", "failed", "lamports_spent") SELECT "id", "trigger", "started_at_ms", "finished_at_ms", "outcome", "scanned", "attempted", "succeeded", "skipped", "failed", "lamports_spent" FROM `sweep_runs`;--> statement-breakpoint
DELETE FROM sqlite_sequence WHERE name = '__new_sweep_runs';--> statement-breakpoint
INSERT INTO sqlite_sequence (name, seq) SELECT '__new_sweep_runs', seq FROM sqlite_sequence WHERE name = 'sweep_runs';--> statement-breakpoint
DROP TABLE `sweep_runs`;--> statement-breakpoint
ALTER TABLE `__new_sweep_runs` RENAME TO `sweep_runs`;--> statement-breakpoint
CREATE TABLE `__new_sweep_state` (
	`wallet_pubkey` text NOT NULL,
	`rail` text NOT NULL,
	`last_attempt_at_ms` integer NOT NULL,
	`last_signature` text,
	`last_error` text,
	`claim_id` text,
	`claim_expires_at_ms` integer,
	`last_outcome` text,
	PRIMARY KEY(`wallet_pubkey`, `rail`),
	CONSTRAINT "sweep_state_last_outcome_check" CHECK(last_outcome IN ('ok', 'skipped', 'failed'))
);
--> statement-breakpoint
INSERT INTO `__new_sweep_state`("wallet_pubkey", "rail", "last_attempt_at_ms", "last_signature", "last_error", "claim_id", "claim_expires_at_ms", "last_outcome") SELECT "wallet_pubkey", "rail", "last_attempt_at_ms", "last_signature", "last_error", "claim_id", "claim_expires_at_ms", "last_outcome" FROM `sweep_state`;--> statement-breakpoint
DROP TABLE `sweep_state`;--> statement-breakpoint
ALTER TABLE `__new_sweep_state` RENAME TO `sweep_state`;--> statement-breakpoint
CREATE INDEX `sweep_state_attempt_idx` ON `sweep_state` (`last_attempt_at_ms`);