-- x402 `payment-identifier` extension (issue 23): the client's idempotency id is recorded with the settlement, and
-- one id names at most one payment per payTo (a different payment under a used id is refused). Partial index:
-- rows without an id cost nothing.
ALTER TABLE `settlements` ADD `payment_id` text;
--> statement-breakpoint
CREATE UNIQUE INDEX `settlements_payment_id_idx` ON `settlements` (`pay_to`,`payment_id`) WHERE `payment_id` IS NOT NULL;
