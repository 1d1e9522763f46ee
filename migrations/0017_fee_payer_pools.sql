-- The exposure budget's pools (src/store/states.ts EXPOSURE_POOLS, docs/money-rules.md): what strangers' payments cost
-- (buyers), what payments to proven sellers cost (sellers, each seller's own quota) and what the operator's jobs spend
-- (jobs) are counted apart, so buyer traffic can never stop a sweep, a keeper or a just-in-time vault. settlement_hash
-- ties a payment's booking to its ledger claim (the booking is written in the claim's own D1 transaction, and voided
-- only with it). The new index on settlements serves the cap on a buyer's payments that failed on chain.
-- SQLite (D1) cannot add a CHECK to an existing table, so the table is rebuilt and its rows copied. Rows written before
-- get their pool from their kind: a priority fee or a sponsored funding was a buyer's, everything else the operator's.
-- Edited after drizzle-kit: the copy computes pool (drizzle copied the new column from the old table), its
-- foreign-key PRAGMAs dropped (as in 0012 and 0013; no table here has a foreign key).
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
	`pool` text DEFAULT 'jobs' NOT NULL,
	`settlement_hash` text,
	CONSTRAINT "fee_payer_exposure_state_check" CHECK(state IN ('held', 'spent', 'returned', 'voided')),
	CONSTRAINT "fee_payer_exposure_pool_check" CHECK(pool IN ('buyers', 'sellers', 'jobs'))
);
--> statement-breakpoint
INSERT INTO `__new_fee_payer_exposure`("booking_id", "rail", "kind", "payer", "pay_to", "lamports", "fee_payer", "state", "booked_at_ms", "updated_at_ms", "pool", "settlement_hash") SELECT "booking_id", "rail", "kind", "payer", "pay_to", "lamports", "fee_payer", "state", "booked_at_ms", "updated_at_ms", CASE WHEN "kind" IN ('priority_fee', 'sponsored_funding') THEN 'buyers' ELSE 'jobs' END, NULL FROM `fee_payer_exposure`;--> statement-breakpoint
DROP TABLE `fee_payer_exposure`;--> statement-breakpoint
ALTER TABLE `__new_fee_payer_exposure` RENAME TO `fee_payer_exposure`;--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_payer_idx` ON `fee_payer_exposure` (`payer`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_pay_to_idx` ON `fee_payer_exposure` (`pay_to`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_state_idx` ON `fee_payer_exposure` (`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_pool_idx` ON `fee_payer_exposure` (`pool`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_settlement_idx` ON `fee_payer_exposure` (`settlement_hash`);--> statement-breakpoint
CREATE INDEX `settlements_payer_idx` ON `settlements` (`payer`,`state`,`updated_at_ms`);