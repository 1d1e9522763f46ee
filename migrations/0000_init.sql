CREATE TABLE `consumed_challenges` (
	`nonce` text PRIMARY KEY NOT NULL,
	`wallet` text NOT NULL,
	`action` text NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`consumed_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `jit_provisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`day` text NOT NULL,
	`seller_wallet` text NOT NULL,
	`asset` text NOT NULL,
	`signature` text,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jit_provisions_seller_asset_idx` ON `jit_provisions` (`seller_wallet`,`asset`);--> statement-breakpoint
CREATE INDEX `jit_provisions_day_idx` ON `jit_provisions` (`day`);--> statement-breakpoint
CREATE TABLE `parameters` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`correlation_id` text NOT NULL,
	`scheme` text,
	`network` text,
	`payer` text,
	`pay_to` text,
	`merchant_wallet` text,
	`asset` text,
	`amount` text,
	`outcome` text NOT NULL,
	`reason` text,
	`signature` text,
	`started_at_ms` integer NOT NULL,
	`duration_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_attempts_merchant_idx` ON `payment_attempts` (`merchant_wallet`,`id`);--> statement-breakpoint
CREATE INDEX `payment_attempts_pay_to_idx` ON `payment_attempts` (`pay_to`,`id`);--> statement-breakpoint
CREATE TABLE `providers` (
	`wallet_pubkey` text PRIMARY KEY NOT NULL,
	`settlement_mode` text NOT NULL,
	`spl_mint` text,
	`split_vault_pda` text NOT NULL,
	`service_url` text,
	`display_name` text,
	`description` text,
	`tags_json` text DEFAULT '[]' NOT NULL,
	`service_metadata_json` text,
	`listing_opt_in` integer DEFAULT false NOT NULL,
	`registration_verified_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`retired_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `providers_listing_idx` ON `providers` (`retired_at_ms`,`listing_opt_in`,`updated_at_ms`);--> statement-breakpoint
CREATE TABLE `resources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`wallet_pubkey` text NOT NULL,
	`resource_url` text NOT NULL,
	`http_method` text DEFAULT 'GET' NOT NULL,
	`seller_resource_id` text,
	`title` text NOT NULL,
	`description` text,
	`use_case` text,
	`category` text,
	`tags_json` text DEFAULT '[]' NOT NULL,
	`scheme` text NOT NULL,
	`network` text,
	`intent_contract_url` text,
	`merchant_origin` text,
	`listing_opt_in` integer DEFAULT false NOT NULL,
	`last_probe_at_ms` integer,
	`last_probe_ok` integer DEFAULT false NOT NULL,
	`last_probe_status` integer,
	`last_probe_error` text,
	`registration_verified_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`retired_at_ms` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resources_owner_url_idx` ON `resources` (`wallet_pubkey`,`resource_url`,`http_method`);--> statement-breakpoint
CREATE INDEX `resources_listing_idx` ON `resources` (`retired_at_ms`,`listing_opt_in`,`last_probe_ok`,`updated_at_ms`);--> statement-breakpoint
CREATE TABLE `settlements` (
	`message_hash` text PRIMARY KEY NOT NULL,
	`signature` text NOT NULL,
	`state` text NOT NULL,
	`scheme` text NOT NULL,
	`network` text NOT NULL,
	`payer` text NOT NULL,
	`pay_to` text NOT NULL,
	`merchant_wallet` text,
	`asset` text NOT NULL,
	`amount` text NOT NULL,
	`last_valid_block_height` text,
	`error_reason` text,
	`error_message` text,
	`lease_id` text,
	`lease_expires_at_ms` integer,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `settlements_pay_to_idx` ON `settlements` (`pay_to`,`state`,`updated_at_ms`);--> statement-breakpoint
CREATE TABLE `sweep_state` (
	`wallet_pubkey` text NOT NULL,
	`rail` text NOT NULL,
	`last_attempt_at_ms` integer NOT NULL,
	`last_signature` text,
	`last_error` text,
	PRIMARY KEY(`wallet_pubkey`, `rail`)
);
