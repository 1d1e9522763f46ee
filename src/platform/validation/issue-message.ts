import * as v from "valibot";

/** A valibot issue as a person reads it: a missing key says "is required" instead of valibot's generic text. */
export function readableIssueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.received === "undefined" && issue.type !== "custom") return "is required";
  return issue.message;
}

/** "paymentPayload.accepted.amount: must be a string of decimal digits" — the first two problems, readable. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[], where: string): string {
  return issues
    .slice(0, 2)
    .map((issue) => `${v.getDotPath(issue) ?? where}: ${readableIssueMessage(issue)}`)
    .join("; ");
}
