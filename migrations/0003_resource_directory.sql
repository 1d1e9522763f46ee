-- Resource directory (issue 11): probe state, the listing flag, cursor and cron indexes, full-text search.
ALTER TABLE `resources` ADD `last_probe_scheme` text;
--> statement-breakpoint
ALTER TABLE `resources` ADD `probe_failures` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `resources` ADD `last_probe_ok_at_ms` integer;
--> statement-breakpoint
ALTER TABLE `resources` ADD `probe_accepts_json` text;
--> statement-breakpoint
ALTER TABLE `resources` ADD `probe_bazaar_json` text;
--> statement-breakpoint
-- Gates 2-4 of docs/facilitator-spec.md §3.3 (signed registration, opt-in and not retired, probe passing); gate 1 (a verified,
-- not retired merchant) is joined from `providers` at read time.
ALTER TABLE `resources` ADD `listed` integer DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE INDEX `resources_listed_cursor_idx` ON `resources` (`listed`,`updated_at_ms`,`id`);
--> statement-breakpoint
CREATE INDEX `resources_probe_due_idx` ON `resources` (`retired_at_ms`,`last_probe_at_ms`,`id`);
--> statement-breakpoint
CREATE INDEX `providers_cursor_idx` ON `providers` (`updated_at_ms`,`wallet_pubkey`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `resources_fts` USING fts5(`title`, `description`, `use_case`, `tags`, tokenize = 'porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `resources_fts_insert` AFTER INSERT ON `resources` BEGIN
  INSERT INTO `resources_fts` (rowid, `title`, `description`, `use_case`, `tags`)
  VALUES (new.`id`, new.`title`, coalesce(new.`description`, ''), coalesce(new.`use_case`, ''), replace(replace(replace(new.`tags_json`, '[', ''), ']', ''), '"', ' '));
END;
--> statement-breakpoint
CREATE TRIGGER `resources_fts_update` AFTER UPDATE OF `title`, `description`, `use_case`, `tags_json` ON `resources` BEGIN
  DELETE FROM `resources_fts` WHERE rowid = old.`id`;
  INSERT INTO `resources_fts` (rowid, `title`, `description`, `use_case`, `tags`)
  VALUES (new.`id`, new.`title`, coalesce(new.`description`, ''), coalesce(new.`use_case`, ''), replace(replace(replace(new.`tags_json`, '[', ''), ']', ''), '"', ' '));
END;
--> statement-breakpoint
CREATE TRIGGER `resources_fts_delete` AFTER DELETE ON `resources` BEGIN
  DELETE FROM `resources_fts` WHERE rowid = old.`id`;
END;
--> statement-breakpoint
-- When the probe job last harvested each merchant's Seller Resource Manifest (oldest first).
CREATE TABLE `manifest_harvests` (
	`wallet_pubkey` text PRIMARY KEY NOT NULL,
	`last_harvest_at_ms` integer NOT NULL,
	`last_error` text
);
