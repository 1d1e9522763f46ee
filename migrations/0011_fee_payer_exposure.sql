-- The fee payer's exposure budget (issue 32 §1, src/fee-payer-budget/): every lamport the fee payer fronts or spends
-- beyond the network fee of a seller's payment is booked against operator caps. An upto channel's rent is booked on
-- its own row (rent_lamports, counted while the row is live: its state follows the channel, so the keeper closing it
-- returns the rent to the budget); every other spend is one fee_payer_exposure row (held: rent expected back; spent:
-- gone for good, counted 24 h). The new indexes serve the caps per buyer wallet, per payTo and per hour.
CREATE TABLE `fee_payer_exposure` (
	`booking_id` text PRIMARY KEY NOT NULL,
	`rail` text NOT NULL,
	`kind` text NOT NULL,
	`payer` text,
	`pay_to` text,
	`lamports` integer NOT NULL,
	`state` text NOT NULL,
	`booked_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_payer_idx` ON `fee_payer_exposure` (`payer`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_pay_to_idx` ON `fee_payer_exposure` (`pay_to`,`state`,`booked_at_ms`);--> statement-breakpoint
CREATE INDEX `fee_payer_exposure_state_idx` ON `fee_payer_exposure` (`state`,`booked_at_ms`);--> statement-breakpoint
ALTER TABLE `upto_channels` ADD `rent_lamports` integer DEFAULT 4711920 NOT NULL;--> statement-breakpoint
CREATE INDEX `upto_channels_payer_idx` ON `upto_channels` (`payer`,`state`,`rent_lamports`);--> statement-breakpoint
CREATE INDEX `upto_channels_pay_to_idx` ON `upto_channels` (`pay_to`,`state`,`rent_lamports`);--> statement-breakpoint
CREATE INDEX `upto_channels_payer_opens_idx` ON `upto_channels` (`payer`,`created_at_ms`,`state`);--> statement-breakpoint
CREATE INDEX `upto_channels_rent_idx` ON `upto_channels` (`state`,`rent_lamports`);
