-- Issue 22: the probe only knocks on origins their sellers proved, listing gate 4 means what it says, and dead
-- resources leave the probe queue.
--
-- The origin a wallet proved it controls (its Seller Resource Manifest names the wallet) and when that was last
-- checked. A proof holds only for exactly this origin: a new serviceUrl needs a new proof.
ALTER TABLE `providers` ADD `proven_origin` text;
--> statement-breakpoint
ALTER TABLE `providers` ADD `origin_proven_at_ms` integer;
--> statement-breakpoint
-- When a resource is next due for a probe: 0 = never probed (first in line), NULL = out of the queue (it kept
-- failing past the give-up time; a seller's own probe, registration or a passing probe brings it back).
ALTER TABLE `resources` ADD `next_probe_at_ms` integer DEFAULT 0;
--> statement-breakpoint
-- Start of the current run of failed probes (NULL while the last probe passed).
ALTER TABLE `resources` ADD `failing_since_ms` integer;
--> statement-breakpoint
UPDATE `resources` SET `next_probe_at_ms` = coalesce(`last_probe_at_ms`, 0);
--> statement-breakpoint
UPDATE `resources` SET `failing_since_ms` = `last_probe_at_ms` WHERE `last_probe_at_ms` IS NOT NULL AND `last_probe_ok` = 0;
--> statement-breakpoint
-- No origin is proven yet, so nothing stays listed on an unproven origin: every resource comes back once its
-- merchant's manifest harvest finds the proof and a probe passes (README "Resource directory").
UPDATE `resources` SET `listed` = 0, `last_probe_ok` = 0 WHERE `listed` = 1 OR `last_probe_ok` = 1;
--> statement-breakpoint
DROP INDEX IF EXISTS `resources_probe_due_idx`;
--> statement-breakpoint
CREATE INDEX `resources_probe_queue_idx` ON `resources` (`next_probe_at_ms`, `id`) WHERE `retired_at_ms` IS NULL;
