-- Search at 100,000 resources (issue 11). `visible` holds all four listing gates of docs/facilitator-spec.md §3.3 (the registry's
-- `listed` and a not-retired merchant), kept by triggers, so no list or search joins `providers` per row. The
-- full-text index holds only visible resources (plus category and scheme as weight-0 filter columns), and a
-- counter table answers /directory/stats without a scan. Every FTS write re-reads the row, so trigger order
-- never matters.
ALTER TABLE `resources` ADD `visible` integer DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE `resources` SET `visible` = (`listed` = 1 AND EXISTS (SELECT 1 FROM `providers` p WHERE p.`wallet_pubkey` = `resources`.`wallet_pubkey` AND p.`retired_at_ms` IS NULL));
--> statement-breakpoint
DROP INDEX IF EXISTS `resources_listed_cursor_idx`;
--> statement-breakpoint
CREATE INDEX `resources_visible_cursor_idx` ON `resources` (`visible`,`updated_at_ms`,`id`);
--> statement-breakpoint
CREATE INDEX `resources_visible_category_idx` ON `resources` (`visible`,`category`,`updated_at_ms`,`id`);
--> statement-breakpoint
CREATE INDEX `resources_visible_scheme_idx` ON `resources` (`visible`,`scheme`,`updated_at_ms`,`id`);
--> statement-breakpoint
CREATE TABLE `directory_counts` (
	`scheme` text PRIMARY KEY NOT NULL,
	`visible_resources` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `directory_counts` (`scheme`, `visible_resources`) SELECT `scheme`, count(*) FROM `resources` WHERE `visible` = 1 GROUP BY `scheme`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `resources_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `resources_fts_update`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `resources_fts_delete`;
--> statement-breakpoint
DROP TABLE IF EXISTS `resources_fts`;
--> statement-breakpoint
-- `category` and `scheme` hold one marked token each ('zc' / 'zs' + the value, '-' as 'z'), so a filter phrase
-- walks only rows of that value, never text that happens to contain the same word.
-- Prefix indexes for 2..8 characters: every query word is a prefix term, and without them FTS5 merges the
-- doclists of all terms under a prefix on each query (about 2 ms per common word at 100,000 rows).
CREATE VIRTUAL TABLE `resources_fts` USING fts5(`title`, `description`, `use_case`, `tags`, `category`, `scheme`, tokenize = 'porter unicode61', prefix = '2 3 4 5 6 7 8');
--> statement-breakpoint
INSERT INTO `resources_fts` (rowid, `title`, `description`, `use_case`, `tags`, `category`, `scheme`)
  SELECT `id`, `title`, coalesce(`description`, ''), coalesce(`use_case`, ''), replace(replace(replace(`tags_json`, '[', ''), ']', ''), '"', ' '), 'zc' || replace(coalesce(`category`, ''), '-', 'z'), 'zs' || replace(`scheme`, '-', 'z')
  FROM `resources` WHERE `visible` = 1;
--> statement-breakpoint
-- Gate 1 follows the merchant: a new row, a changed `listed` or owner recomputes `visible` from `providers`.
CREATE TRIGGER `resources_visible_insert` AFTER INSERT ON `resources` BEGIN
  UPDATE `resources` SET `visible` = (`listed` = 1 AND EXISTS (SELECT 1 FROM `providers` p WHERE p.`wallet_pubkey` = new.`wallet_pubkey` AND p.`retired_at_ms` IS NULL)) WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `resources_visible_update` AFTER UPDATE OF `listed`, `wallet_pubkey` ON `resources`
WHEN old.`listed` IS NOT new.`listed` OR old.`wallet_pubkey` IS NOT new.`wallet_pubkey` BEGIN
  UPDATE `resources` SET `visible` = (`listed` = 1 AND EXISTS (SELECT 1 FROM `providers` p WHERE p.`wallet_pubkey` = new.`wallet_pubkey` AND p.`retired_at_ms` IS NULL)) WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `providers_visible_insert` AFTER INSERT ON `providers` BEGIN
  UPDATE `resources` SET `visible` = (`listed` = 1 AND new.`retired_at_ms` IS NULL) WHERE `wallet_pubkey` = new.`wallet_pubkey`;
END;
--> statement-breakpoint
CREATE TRIGGER `providers_visible_update` AFTER UPDATE OF `retired_at_ms`, `wallet_pubkey` ON `providers`
WHEN (old.`retired_at_ms` IS NULL) IS NOT (new.`retired_at_ms` IS NULL) OR old.`wallet_pubkey` IS NOT new.`wallet_pubkey` BEGIN
  UPDATE `resources` SET `visible` = 0 WHERE `wallet_pubkey` = old.`wallet_pubkey` AND old.`wallet_pubkey` <> new.`wallet_pubkey`;
  UPDATE `resources` SET `visible` = (`listed` = 1 AND new.`retired_at_ms` IS NULL) WHERE `wallet_pubkey` = new.`wallet_pubkey`;
END;
--> statement-breakpoint
CREATE TRIGGER `providers_visible_delete` AFTER DELETE ON `providers` BEGIN
  UPDATE `resources` SET `visible` = 0 WHERE `wallet_pubkey` = old.`wallet_pubkey`;
END;
--> statement-breakpoint
-- The full-text row of a resource exists exactly while it is visible, with its current text.
CREATE TRIGGER `resources_fts_insert` AFTER INSERT ON `resources` BEGIN
  DELETE FROM `resources_fts` WHERE rowid = new.`id`;
  INSERT INTO `resources_fts` (rowid, `title`, `description`, `use_case`, `tags`, `category`, `scheme`)
    SELECT `id`, `title`, coalesce(`description`, ''), coalesce(`use_case`, ''), replace(replace(replace(`tags_json`, '[', ''), ']', ''), '"', ' '), 'zc' || replace(coalesce(`category`, ''), '-', 'z'), 'zs' || replace(`scheme`, '-', 'z')
    FROM `resources` WHERE `id` = new.`id` AND `visible` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `resources_fts_update` AFTER UPDATE OF `visible`, `title`, `description`, `use_case`, `tags_json`, `category`, `scheme` ON `resources`
WHEN old.`visible` IS NOT new.`visible` OR (new.`visible` = 1 AND (old.`title` IS NOT new.`title` OR old.`description` IS NOT new.`description`
  OR old.`use_case` IS NOT new.`use_case` OR old.`tags_json` IS NOT new.`tags_json` OR old.`category` IS NOT new.`category` OR old.`scheme` IS NOT new.`scheme`)) BEGIN
  DELETE FROM `resources_fts` WHERE rowid = new.`id`;
  INSERT INTO `resources_fts` (rowid, `title`, `description`, `use_case`, `tags`, `category`, `scheme`)
    SELECT `id`, `title`, coalesce(`description`, ''), coalesce(`use_case`, ''), replace(replace(replace(`tags_json`, '[', ''), ']', ''), '"', ' '), 'zc' || replace(coalesce(`category`, ''), '-', 'z'), 'zs' || replace(`scheme`, '-', 'z')
    FROM `resources` WHERE `id` = new.`id` AND `visible` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `resources_fts_delete` AFTER DELETE ON `resources` BEGIN
  DELETE FROM `resources_fts` WHERE rowid = old.`id`;
END;
--> statement-breakpoint
-- Visible resources per scheme: each statement moves its own row's contribution (old out, new in).
CREATE TRIGGER `directory_counts_insert` AFTER INSERT ON `resources` WHEN new.`visible` = 1 BEGIN
  INSERT INTO `directory_counts` (`scheme`, `visible_resources`) VALUES (new.`scheme`, 1)
    ON CONFLICT (`scheme`) DO UPDATE SET `visible_resources` = `visible_resources` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `directory_counts_update` AFTER UPDATE OF `visible`, `scheme` ON `resources`
WHEN old.`visible` IS NOT new.`visible` OR (new.`visible` = 1 AND old.`scheme` IS NOT new.`scheme`) BEGIN
  UPDATE `directory_counts` SET `visible_resources` = `visible_resources` - 1 WHERE old.`visible` = 1 AND `scheme` = old.`scheme`;
  INSERT INTO `directory_counts` (`scheme`, `visible_resources`) SELECT new.`scheme`, 1 WHERE new.`visible` = 1
    ON CONFLICT (`scheme`) DO UPDATE SET `visible_resources` = `visible_resources` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `directory_counts_delete` AFTER DELETE ON `resources` WHEN old.`visible` = 1 BEGIN
  UPDATE `directory_counts` SET `visible_resources` = `visible_resources` - 1 WHERE `scheme` = old.`scheme`;
END;
--> statement-breakpoint
-- The tags of visible resources, one row each, in the order of the unranked list: a tag filter walks only
-- resources carrying that tag, however rare (json_each over every row would scan the whole directory).
CREATE TABLE `resource_tags` (
	`tag` text NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`resource_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `resource_tags_cursor_idx` ON `resource_tags` (`tag`,`updated_at_ms`,`resource_id`);
--> statement-breakpoint
CREATE INDEX `resource_tags_resource_idx` ON `resource_tags` (`resource_id`);
--> statement-breakpoint
INSERT INTO `resource_tags` (`tag`, `updated_at_ms`, `resource_id`)
  SELECT DISTINCT t.`value`, r.`updated_at_ms`, r.`id`
  FROM `resources` r, json_each(CASE WHEN json_valid(r.`tags_json`) THEN r.`tags_json` ELSE '[]' END) t
  WHERE r.`visible` = 1 AND t.`type` = 'text';
--> statement-breakpoint
CREATE TRIGGER `resource_tags_insert` AFTER INSERT ON `resources` BEGIN
  DELETE FROM `resource_tags` WHERE `resource_id` = new.`id`;
  INSERT INTO `resource_tags` (`tag`, `updated_at_ms`, `resource_id`)
    SELECT DISTINCT t.`value`, r.`updated_at_ms`, r.`id`
    FROM `resources` r, json_each(CASE WHEN json_valid(r.`tags_json`) THEN r.`tags_json` ELSE '[]' END) t
    WHERE r.`id` = new.`id` AND r.`visible` = 1 AND t.`type` = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `resource_tags_update` AFTER UPDATE OF `visible`, `tags_json`, `updated_at_ms` ON `resources`
WHEN old.`visible` IS NOT new.`visible` OR (new.`visible` = 1 AND (old.`tags_json` IS NOT new.`tags_json` OR old.`updated_at_ms` IS NOT new.`updated_at_ms`)) BEGIN
  DELETE FROM `resource_tags` WHERE `resource_id` = new.`id`;
  INSERT INTO `resource_tags` (`tag`, `updated_at_ms`, `resource_id`)
    SELECT DISTINCT t.`value`, r.`updated_at_ms`, r.`id`
    FROM `resources` r, json_each(CASE WHEN json_valid(r.`tags_json`) THEN r.`tags_json` ELSE '[]' END) t
    WHERE r.`id` = new.`id` AND r.`visible` = 1 AND t.`type` = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `resource_tags_delete` AFTER DELETE ON `resources` BEGIN
  DELETE FROM `resource_tags` WHERE `resource_id` = old.`id`;
END;
