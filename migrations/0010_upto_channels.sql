-- upto rail (issue 24 §2, §3): one row per payment channel this facilitator opened as fee payer and rent payer. It
-- ties the channel to its deposit's ledger row (open_message_hash), holds the one claim transaction the facilitator
-- signed for it (so a retried claim re-sends the same bytes and one claim settles once), and is the keeper's queue:
-- after the voucher expiry plus a grace period the keeper closes what is left (the unclaimed deposit back to the
-- buyer, the rent back to the fee payer). States: open | closed | dropped (never opened here) | stuck (gave up).
CREATE TABLE `upto_channels` (
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
	`state` text DEFAULT 'open' NOT NULL,
	`next_check_at_ms` integer NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`keeper_claim_id` text,
	`keeper_claim_expires_at_ms` integer,
	`last_action` text,
	`last_signature` text,
	`last_outcome` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `upto_channels_due_idx` ON `upto_channels` (`state`,`failures`,`next_check_at_ms`);
--> statement-breakpoint
CREATE INDEX `upto_channels_purge_idx` ON `upto_channels` (`state`,`updated_at_ms`);
