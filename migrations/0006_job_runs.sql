-- Jobs (issue 20): the last run of each scheduled job (sweep, escrow-keeper, probe, retention, search-index-merge),
-- one row per job, shown by /health with what the fee payer spent.
CREATE TABLE `job_runs` (
	`job` text PRIMARY KEY NOT NULL,
	`trigger` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`lamports_spent` text NOT NULL,
	`detail` text
);
