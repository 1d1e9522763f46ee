-- payment_attempts.role (src/store/states.ts PAYMENT_ATTEMPT_ROLES): what a settlement is to the seller. A column
-- with its CHECK added in place (NULL on the rows already there passes it) rather than drizzle-kit's rebuild of the
-- table, which would copy every attempt row; the meta snapshot records the same table.
ALTER TABLE `payment_attempts` ADD `role` text CONSTRAINT "payment_attempts_role_check" CHECK(role IS NULL OR role IN ('sale', 'deposit'));
