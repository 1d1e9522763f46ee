import type * as v from "valibot";

/** A valibot issue as a person reads it: a missing key says "is required" instead of valibot's generic text. */
export function readableIssueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.received === "undefined" && issue.type !== "custom") return "is required";
  return issue.message;
}
