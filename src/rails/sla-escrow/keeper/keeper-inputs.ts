import * as v from "valibot";

/** POST /escrow-keeper: both fields optional; an empty body runs the keeper as the Cron Trigger does. */
export const EscrowKeeperBodySchema = v.strictObject(
  {
    dryRun: v.optional(v.boolean("must be true or false")),
    limit: v.optional(
      v.pipe(
        v.number("must be a number"),
        v.integer("must be a whole number"),
        v.minValue(1, "must be at least 1"),
        v.maxValue(1_000, "must be at most 1000"),
      ),
    ),
  },
  "only dryRun and limit are accepted",
);
