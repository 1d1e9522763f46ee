import * as v from "valibot";
import type { KeeperReport } from "./run-keeper";

/**
 * pr402's escrow operator routes (`/sla-escrow-settle`, `/sla-escrow-close` and their `-cron` GETs) run our keeper:
 * one pass that releases or refunds what the program allows (and, once the keeper closes terminal payments, closes
 * them). Their request fields that steer pr402's own candidate scan (`cooldownSeconds`, `deadlineSeconds`,
 * `lookbackSeconds`, `candidateSource`) are accepted and bounded, but our keeper schedules from its D1 watch list,
 * so they change nothing; the response says so in `ignored`.
 */
const Seconds = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number of seconds`),
    v.integer(`${what} must be a whole number`),
    v.minValue(0, `${what} must not be negative`),
    v.maxValue(31_536_000, `${what} must be at most one year`),
  );

export const EscrowSettleOperatorBodySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.number("must be a number"),
      v.integer("must be a whole number"),
      v.minValue(1, "must be at least 1"),
      v.maxValue(1_000, "must be at most 1000"),
    ),
  ),
  dryRun: v.optional(v.boolean("must be true or false")),
  cooldownSeconds: v.optional(Seconds("cooldownSeconds")),
  deadlineSeconds: v.optional(Seconds("deadlineSeconds")),
  lookbackSeconds: v.optional(Seconds("lookbackSeconds")),
  candidateSource: v.optional(v.picklist(["pr402_db", "chain_scan"], 'must be "pr402_db" or "chain_scan"')),
});

export const EscrowCloseOperatorBodySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.number("must be a number"),
      v.integer("must be a whole number"),
      v.minValue(1, "must be at least 1"),
      v.maxValue(1_000, "must be at most 1000"),
    ),
  ),
  dryRun: v.optional(v.boolean("must be true or false")),
});

const STEERING_FIELDS = ["cooldownSeconds", "deadlineSeconds", "lookbackSeconds", "candidateSource"] as const;

/** pr402's SlaEscrowSettleResponse / SlaEscrowCloseResponse counters, next to the keeper's own report. */
export function toPr402KeeperResponse(report: KeeperReport, body: Record<string, unknown>) {
  // pr402's failed: a payout the cluster refused at preflight or that failed on chain (skipped counts the rest).
  const failed = report.items.filter((item) => item.outcome === "refused" || item.outcome === "failed").length;
  const succeeded = report.released + report.refunded;
  return {
    ...report,
    considered: report.scanned,
    succeeded,
    failed,
    skipped: report.scanned - succeeded - failed,
    ignored: STEERING_FIELDS.filter((field) => body[field] !== undefined),
  };
}
