-- providers.split_vault_pda becomes nullable: a seller registered with the exact rail's wallet payTo form
-- (SVC_EXACT_WALLET_PAYTO, src/rails/exact/wallet-seller-view.ts) is paid at its own wallet and has no vault; a null
-- vault is how its row says so. SQLite (D1) cannot drop a NOT NULL in place, so the table is rebuilt and every row
-- copied as it is (all of them have a vault). providers has no AUTOINCREMENT id (no sequence to carry) and no foreign
-- key; both indexes are created again. Its three triggers go with the old table, and the rename refuses to run while
-- resources' two triggers name a providers table that is gone, so those two are dropped first; all five are created
-- again as 0005_search_rank.sql wrote them (no later migration changed them), keeping the resources' visible flag.
-- Edited after drizzle-kit: its foreign-key PRAGMAs dropped (as in 0012, 0013), the triggers added.
DROP TRIGGER `resources_visible_insert`;--> statement-breakpoint
DROP TRIGGER `resources_visible_update`;--> statement-breakpoint
CREATE TABLE `__new_providers` (
	`wallet_pubkey` text PRIMARY KEY NOT NULL,
	`settlement_mode` text NOT NULL,
	`spl_mint` text,
	`split_vault_pda` text,
	`service_url` text,
	`display_name` text,
	`description` text,
	`tags_json` text DEFAULT '[]' NOT NULL,
	`service_metadata_json` text,
	`listing_opt_in` integer DEFAULT false NOT NULL,
	`registration_verified_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`retired_at_ms` integer,
	`proven_origin` text,
	`origin_proven_at_ms` integer
);
--> statement-breakpoint
INSERT INTO `__new_providers`("wallet_pubkey", "settlement_mode", "spl_mint", "split_vault_pda", "service_url", "display_name", "description", "tags_json", "service_metadata_json", "listing_opt_in", "registration_verified_at_ms", "updated_at_ms", "retired_at_ms", "proven_origin", "origin_proven_at_ms") SELECT "wallet_pubkey", "settlement_mode", "spl_mint", "split_vault_pda", "service_url", "display_name", "description", "tags_json", "service_metadata_json", "listing_opt_in", "registration_verified_at_ms", "updated_at_ms", "retired_at_ms", "proven_origin", "origin_proven_at_ms" FROM `providers`;--> statement-breakpoint
DROP TABLE `providers`;--> statement-breakpoint
ALTER TABLE `__new_providers` RENAME TO `providers`;--> statement-breakpoint
CREATE INDEX `providers_listing_idx` ON `providers` (`retired_at_ms`,`listing_opt_in`,`updated_at_ms`);--> statement-breakpoint
CREATE INDEX `providers_cursor_idx` ON `providers` (`updated_at_ms`,`wallet_pubkey`);
--> statement-breakpoint
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
