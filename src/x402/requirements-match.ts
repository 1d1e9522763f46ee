import type { PaymentRequirements } from "./schemas";
import { bareScheme } from "./scheme-names";

/**
 * `extra` fields a seller's server may recompute for every request (the official `ExactSvmScheme` server with
 * `rpcUrl` adds a fresh blockhash to each 402 and rebuilds the requirements it sends to /verify): they are not
 * payment terms, and the transaction carries its own blockhash, so they are left out of the comparison.
 */
export const PER_REQUEST_EXTRA_FIELDS: ReadonlySet<string> = new Set([
  "recentBlockhash",
  "lastValidBlockHeight",
  "recentSlot",
]);

/**
 * `paymentRequirements` against `paymentPayload.accepted` (docs/facilitator-spec.md §2.3), the way `@x402/core` matches
 * them: every field outside `extra` identical (scheme aliases normalised), and every `extra` field of the requirements
 * present with the same value in `accepted` — except the per-request fields. `accepted` may carry more `extra` keys;
 * verification reads the requirements, never those. (`recentSlot`: the official `upto` server's slot hint, per request
 * too.)
 */
export function requirementsMatch(required: PaymentRequirements, accepted: PaymentRequirements): boolean {
  if (wireScheme(required) !== wireScheme(accepted)) return false;
  for (const key of new Set([...Object.keys(required), ...Object.keys(accepted)])) {
    if (key === "scheme" || key === "extra") continue;
    if (!sameJson(fieldOf(required, key), fieldOf(accepted, key))) return false;
  }
  const acceptedExtra = accepted.extra;
  for (const [key, value] of Object.entries(required.extra)) {
    if (value === undefined || PER_REQUEST_EXTRA_FIELDS.has(key)) continue;
    if (!Object.hasOwn(acceptedExtra, key) || !sameJson(acceptedExtra[key], value)) return false;
  }
  return true;
}

function wireScheme(requirements: PaymentRequirements): string {
  return bareScheme(requirements.scheme);
}

function fieldOf(requirements: PaymentRequirements, key: string): unknown {
  return (requirements as unknown as Record<string, unknown>)[key];
}

/**
 * Whether two parsed JSON values serialise alike: key order does not count and an undefined member is the same as
 * an absent one. Compared in place, without building canonical strings (this runs on every verify and settle).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let definedOnLeft = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key) || left[key] === undefined) continue;
    definedOnLeft++;
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
  }
  let definedOnRight = 0;
  for (const key in right) if (Object.hasOwn(right, key) && right[key] !== undefined) definedOnRight++;
  return definedOnLeft === definedOnRight;
}

/**
 * Which term differs, in words, for the refusal of a mismatch (`requirementsMatch` said false: built only then, so
 * the check itself stays a plain comparison). Names the first differing field and both values.
 */
export function describeRequirementsMismatch(required: PaymentRequirements, accepted: PaymentRequirements): string {
  const shown = (value: unknown) => (value === undefined ? "absent" : JSON.stringify(value).slice(0, 100));
  const differs = (field: string, mine: unknown, theirs: unknown) =>
    `paymentRequirements.${field} is ${shown(mine)} but paymentPayload.accepted.${field} is ${shown(theirs)}`;
  if (wireScheme(required) !== wireScheme(accepted)) return differs("scheme", required.scheme, accepted.scheme);
  for (const key of new Set([...Object.keys(required), ...Object.keys(accepted)])) {
    if (key === "scheme" || key === "extra") continue;
    if (!sameJson(fieldOf(required, key), fieldOf(accepted, key)))
      return differs(key, fieldOf(required, key), fieldOf(accepted, key));
  }
  for (const [key, value] of Object.entries(required.extra)) {
    if (value === undefined || PER_REQUEST_EXTRA_FIELDS.has(key)) continue;
    if (!Object.hasOwn(accepted.extra, key) || !sameJson(accepted.extra[key], value))
      return differs(`extra.${key}`, value, accepted.extra[key]);
  }
  return "they differ";
}
