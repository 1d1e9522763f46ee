-- Escrow keeper (issue 10): every sla-escrow payment this facilitator settled, watched until it is released or refunded.
CREATE TABLE `escrow_watch` (
	`payment_pda` text PRIMARY KEY NOT NULL,
	`mint` text NOT NULL,
	`funding_signature` text NOT NULL,
	`state` text DEFAULT 'open' NOT NULL,
	`next_check_at_ms` integer NOT NULL,
	`claim_id` text,
	`claim_expires_at_ms` integer,
	`last_action` text,
	`last_signature` text,
	`last_outcome` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `escrow_watch_due_idx` ON `escrow_watch` (`state`,`next_check_at_ms`);
