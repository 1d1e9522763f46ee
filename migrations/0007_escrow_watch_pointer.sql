-- Escrow keeper cannot be stalled or poisoned (issue 20 §2). A watch row is only a pointer to a Payment account and
-- the funding this facilitator settled: the mint (and every other fact of the payment) is read from the chain, so
-- the column goes. New: the funding's blockhash (to drop a row whose funding never landed once it expired), the
-- sponsored payer (a failed sponsored funding counts against it), and a failure count (growing backoff, then a cap).
-- States: open | closed (released/refunded/closed on chain) | dropped (never funded here) | stuck (gave up).
CREATE TABLE `escrow_watch_v2` (
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
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `escrow_watch_v2` (`payment_pda`, `funding_signature`, `state`, `next_check_at_ms`, `claim_id`, `claim_expires_at_ms`,
	`last_action`, `last_signature`, `last_outcome`, `created_at_ms`, `updated_at_ms`)
SELECT `payment_pda`, `funding_signature`, `state`, `next_check_at_ms`, `claim_id`, `claim_expires_at_ms`,
	`last_action`, `last_signature`, `last_outcome`, `created_at_ms`, `updated_at_ms` FROM `escrow_watch`;
--> statement-breakpoint
DROP TABLE `escrow_watch`;
--> statement-breakpoint
ALTER TABLE `escrow_watch_v2` RENAME TO `escrow_watch`;
--> statement-breakpoint
CREATE INDEX `escrow_watch_due_idx` ON `escrow_watch` (`state`,`failures`,`next_check_at_ms`);
--> statement-breakpoint
CREATE INDEX `escrow_watch_purge_idx` ON `escrow_watch` (`state`,`updated_at_ms`);
--> statement-breakpoint
-- Sponsored fundings that executed and failed on chain (the fee payer paid their fee): counted per payer to cap them.
CREATE TABLE `sponsored_funding_failures` (
	`signature` text PRIMARY KEY NOT NULL,
	`payer` text NOT NULL,
	`failed_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sponsored_funding_failures_payer_idx` ON `sponsored_funding_failures` (`payer`,`failed_at_ms`);
