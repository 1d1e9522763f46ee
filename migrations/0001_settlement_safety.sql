-- One success per payment (issue 8): the first /settle answer that reports success claims it here, atomically.
-- A later call gets success again only with the same X-Correlation-ID header within max_timeout_seconds.
ALTER TABLE `settlements` ADD `max_timeout_seconds` integer DEFAULT 60 NOT NULL;
--> statement-breakpoint
ALTER TABLE `settlements` ADD `confirmed_at_ms` integer;
--> statement-breakpoint
ALTER TABLE `settlements` ADD `success_reported_at_ms` integer;
--> statement-breakpoint
ALTER TABLE `settlements` ADD `success_correlation_id` text;
--> statement-breakpoint
CREATE INDEX `settlements_signature_idx` ON `settlements` (`signature`);
--> statement-breakpoint
-- Just-in-time provisioning claims: a claim that never spent anything expires instead of blocking its seller.
ALTER TABLE `jit_provisions` ADD `claim_expires_at_ms` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `jit_provisions` ADD `confirmed_at_ms` integer;
