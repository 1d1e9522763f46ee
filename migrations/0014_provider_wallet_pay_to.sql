-- providers.split_vault_pda becomes nullable: a seller registered with the exact rail's wallet payTo form
-- (SVC_EXACT_WALLET_PAYTO, src/rails/exact/wallet-seller-view.ts) is paid at its own wallet and has no vault; a null
-- vault is how its row says so. SQLite (D1) cannot drop a NOT NULL in place, so the table is rebuilt and every row
-- copied as it is (all of them have a vault). providers has no AUTOINCREMENT id (no sequence to carry) and no foreign
-- key. Not drizzle-kit's create-new-then-rename: that rename refuses to run while resources' visibility triggers
-- (0005_search_rank.sql) name a providers table that is gone, and dropping and re-creating those triggers would change
-- the order in which they fire beside the full-text triggers. So the rows wait in a side table while providers is
-- dropped and created again under its own name, the resources' triggers untouched; the table's own three triggers
-- go with it and are created again as 0005 wrote them (no later migration changed them), after the rows are back,
-- and both indexes likewise. Hand-written after drizzle-kit generated the schema change.
CREATE TABLE `__providers_copy` AS SELECT * FROM `providers`;--> statement-breakpoint
DROP TABLE `providers`;--> statement-breakpoint
CREATE TABLE `providers` (
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
INSERT INTO `providers`("wallet_pubkey", "settlement_mode", "spl_mint", "split_vault_pda", "service_url", "display_name", "description", "tags_json", "service_metadata_json", "listing_opt_in", "registration_verified_at_ms", "updated_at_ms", "retired_at_ms", "proven_origin", "origin_proven_at_ms") SELECT "wallet_pubkey", "settlement_mode", "spl_mint", "split_vault_pda", "service_url", "display_name", "description", "tags_json", "service_metadata_json", "listing_opt_in", "registration_verified_at_ms", "updated_at_ms", "retired_at_ms", "proven_origin", "origin_proven_at_ms" FROM `__providers_copy`;--> statement-breakpoint
DROP TABLE `__providers_copy`;--> statement-breakpoint
CREATE INDEX `providers_listing_idx` ON `providers` (`retired_at_ms`,`listing_opt_in`,`updated_at_ms`);--> statement-breakpoint
CREATE INDEX `providers_cursor_idx` ON `providers` (`updated_at_ms`,`wallet_pubkey`);
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
