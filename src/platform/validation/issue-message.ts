import * as v from "valibot";

/** A valibot issue as a person reads it: a missing key says "is required" instead of valibot's generic text. */
export function readableIssueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.received === "undefined" && issue.type !== "custom") return "is required";
  return issue.message;
}

/** "paymentPayload.accepted.amount: must be a string of decimal digits" — the first two problems, readable. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[], where: string): string {
  const whole = wholePaymentRequiredIssue(issues[0]);
  if (whole !== null) return whole;
  return issues
    .slice(0, 2)
    .map((issue) => `${v.getDotPath(issue) ?? where}: ${readableIssueMessage(issue)}`)
    .join("; ");
}

/** The field the first problem is in (a dot path), for the error body's `field`; null for the body as a whole. */
export function issueField(issues: readonly v.BaseIssue<unknown>[]): string | null {
  const first = issues[0];
  return first ? v.getDotPath(first) : null;
}

/**
 * A whole x402 402 body (`{x402Version, accepts: [...]}`) where one of its lines is expected (a builder's `accepted`,
 * a payload's `accepted`): valibot would only say the line's first key "is required". Says what to send instead.
 */
function wholePaymentRequiredIssue(issue: v.BaseIssue<unknown> | undefined): string | null {
  const path = issue?.path;
  const holder = path?.[path.length - 1]?.input;
  if (!issue || !path || path.length < 2 || issue.received !== "undefined") return null;
  if (typeof holder !== "object" || holder === null || !Array.isArray((holder as { accepts?: unknown }).accepts))
    return null;
  const field = path
    .slice(0, -1)
    .map((item) => String(item.key))
    .join(".");
  return (
    `${field}: is a whole 402 body (it has accepts[]); send one line of its accepts[] as ${field}: ` +
    "the one whose scheme and network you pay, unchanged"
  );
}
