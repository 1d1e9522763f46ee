import { FacilitatorError } from "../../platform/errors/catalogue";
import type { AppContext } from "../context";

/**
 * Bearer auth of the operator routes (`/sweep`, `/sweep-cron`, the escrow keeper trigger): docs/facilitator-spec.md §5.
 * The token is `SVC_OPERATOR_TOKEN`, or its former name `SVC_SWEEP_CRON_TOKEN` (a D1 parameter overrides the secret;
 * platform/config/load-config.ts `operatorToken`). No token configured → 503, so an
 * unconfigured deployment never runs operator jobs for anyone; a missing or wrong token → 401.
 */
export function requireOperatorBearer(c: AppContext): void {
  const expected = c.var.config.operatorToken;
  if (!expected) {
    throw new FacilitatorError(
      "SERVICE_UNAVAILABLE",
      "Operator endpoints are disabled: this deployment has no SVC_OPERATOR_TOKEN",
    );
  }
  const presented = /^Bearer\s+(.+)$/i.exec(c.req.header("Authorization") ?? "")?.[1]?.trim() ?? "";
  if (!constantTimeEqual(presented, expected)) {
    throw new FacilitatorError(
      "UNAUTHORIZED",
      "A valid 'Authorization: Bearer <SVC_OPERATOR_TOKEN>' header is required",
    );
  }
}

/**
 * Compares in time that depends only on the lengths, so response timing does not reveal how much of a guess matched.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) difference |= (left[i] ?? 0) ^ right[i]!;
  return difference === 0;
}
