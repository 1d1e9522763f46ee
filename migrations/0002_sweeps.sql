-- Sweeps (issue 9): per-rail claim and outcome, run summaries, and the index candidate selection reads.
ALTER TABLE `sweep_state` ADD `claim_id` text;
--> statement-breakpoint
ALTER TABLE `sweep_state` ADD `claim_expires_at_ms` integer;
--> statement-breakpoint
ALTER TABLE `sweep_state` ADD `last_outcome` text;
--> statement-breakpoint
CREATE INDEX `sweep_state_attempt_idx` ON `sweep_state` (`last_attempt_at_ms`);
--> statement-breakpoint
CREATE INDEX `settlements_sweep_idx` ON `settlements` (`scheme`,`state`,`updated_at_ms`);
--> statement-breakpoint
CREATE TABLE `sweep_runs` (
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
	`lamports_spent` text NOT NULL
);
