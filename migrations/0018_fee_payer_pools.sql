-- The exposure budget's pools (src/store/states.ts EXPOSURE_POOLS, docs/money-rules.md): what strangers' payments cost
-- (buyers), what payments to proven sellers cost (sellers, each seller's own quota) and what the operator's jobs spend
-- (jobs) are counted apart, so buyer traffic can never stop a sweep, a keeper or a just-in-time vault. settlement_hash
-- ties a payment's booking to its ledger claim (the booking is written in the claim's own D1 transaction, and voided
-- only with it). The new index on settlements serves the cap on a buyer's payments that failed on chain.
-- fee_payer_spend_hours keeps what was spent per pool and per proven seller by the hour, maintained by the triggers at
-- the end on every change of a booking, whatever statement makes it: a cap over a whole pool reads a day's hours, never
-- a day's bookings (every settle checks one).
-- SQLite (D1) cannot add a CHECK to an existing table, so fee_payer_exposure is rebuilt and its rows copied. Rows written
-- before get their pool from their kind: a priority fee or a sponsored funding was a buyer's, everything else the
-- operator's; the hours are filled from the rows still spent.
-- Edited after drizzle-kit: the copy computes pool (drizzle copied the new column from the old table), its
-- foreign-key PRAGMAs dropped (as in 0012 and 0013; no table here has a foreign key), the backfill and the triggers added.
CREATE TABLE `fee_payer_spend_hours` (
	`scope` text NOT NULL,
	`hour_ms` integer NOT NULL,
	`lamports` integer NOT NULL,
	PRIMARY KEY(`scope`, `hour_ms`)
);
--> statement-breakpoint
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
CREATE INDEX `settlements_payer_idx` ON `settlements` (`payer`,`state`,`updated_at_ms`);--> statement-breakpoint
INSERT INTO `fee_payer_spend_hours` (`scope`, `hour_ms`, `lamports`)
  SELECT 'pool:' || `pool`, `booked_at_ms` - `booked_at_ms` % 3600000, SUM(`lamports`) FROM `fee_payer_exposure` WHERE `state` = 'spent'
  GROUP BY 1, 2;--> statement-breakpoint
CREATE TRIGGER `fee_payer_spend_hours_insert` AFTER INSERT ON `fee_payer_exposure` WHEN NEW.`state` = 'spent' BEGIN
  INSERT INTO `fee_payer_spend_hours` (`scope`, `hour_ms`, `lamports`) VALUES ('pool:' || NEW.`pool`, NEW.booked_at_ms - NEW.booked_at_ms % 3600000, NEW.`lamports`)
    ON CONFLICT (`scope`, `hour_ms`) DO UPDATE SET `lamports` = `lamports` + excluded.`lamports`;
  INSERT INTO `fee_payer_spend_hours` (`scope`, `hour_ms`, `lamports`)
    SELECT 'seller:' || NEW.`pay_to`, NEW.booked_at_ms - NEW.booked_at_ms % 3600000, NEW.`lamports` WHERE NEW.`pool` = 'sellers' AND NEW.`pay_to` IS NOT NULL
    ON CONFLICT (`scope`, `hour_ms`) DO UPDATE SET `lamports` = `lamports` + excluded.`lamports`;
END;--> statement-breakpoint
CREATE TRIGGER `fee_payer_spend_hours_update` AFTER UPDATE OF `state`, `lamports`, `pool`, `booked_at_ms`, `pay_to` ON `fee_payer_exposure`
WHEN OLD.`state` = 'spent' OR NEW.`state` = 'spent' BEGIN
  UPDATE `fee_payer_spend_hours` SET `lamports` = `lamports` - OLD.`lamports`
    WHERE OLD.`state` = 'spent' AND `scope` = 'pool:' || OLD.`pool` AND `hour_ms` = OLD.booked_at_ms - OLD.booked_at_ms % 3600000;
  UPDATE `fee_payer_spend_hours` SET `lamports` = `lamports` - OLD.`lamports`
    WHERE OLD.`state` = 'spent' AND OLD.`pool` = 'sellers' AND `scope` = 'seller:' || OLD.`pay_to` AND `hour_ms` = OLD.booked_at_ms - OLD.booked_at_ms % 3600000;
  INSERT INTO `fee_payer_spend_hours` (`scope`, `hour_ms`, `lamports`)
    SELECT 'pool:' || NEW.`pool`, NEW.booked_at_ms - NEW.booked_at_ms % 3600000, NEW.`lamports` WHERE NEW.`state` = 'spent'
    ON CONFLICT (`scope`, `hour_ms`) DO UPDATE SET `lamports` = `lamports` + excluded.`lamports`;
  INSERT INTO `fee_payer_spend_hours` (`scope`, `hour_ms`, `lamports`)
    SELECT 'seller:' || NEW.`pay_to`, NEW.booked_at_ms - NEW.booked_at_ms % 3600000, NEW.`lamports` WHERE NEW.`state` = 'spent' AND NEW.`pool` = 'sellers' AND NEW.`pay_to` IS NOT NULL
    ON CONFLICT (`scope`, `hour_ms`) DO UPDATE SET `lamports` = `lamports` + excluded.`lamports`;
END;--> statement-breakpoint
CREATE TRIGGER `fee_payer_spend_hours_delete` AFTER DELETE ON `fee_payer_exposure` WHEN OLD.`state` = 'spent' BEGIN
  UPDATE `fee_payer_spend_hours` SET `lamports` = `lamports` - OLD.`lamports`
    WHERE `scope` = 'pool:' || OLD.`pool` AND `hour_ms` = OLD.booked_at_ms - OLD.booked_at_ms % 3600000;
  UPDATE `fee_payer_spend_hours` SET `lamports` = `lamports` - OLD.`lamports`
    WHERE OLD.`pool` = 'sellers' AND `scope` = 'seller:' || OLD.`pay_to` AND `hour_ms` = OLD.booked_at_ms - OLD.booked_at_ms % 3600000;
END;
