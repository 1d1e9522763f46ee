import type { PaymentRequirements } from "./schemas";
import { normalizeScheme } from "./scheme-names";

/**
 * `extra` fields a seller's server may recompute for every request (the official `ExactSvmScheme` server with
 * `rpcUrl` adds a fresh blockhash to each 402 and rebuilds the requirements it sends to /verify): they are not
 * payment terms, and the transaction carries its own blockhash, so they are left out of the comparison.
 */
export const PER_REQUEST_EXTRA_FIELDS: ReadonlySet<string> = new Set(["recentBlockhash", "lastValidBlockHeight", "recentSlot"]);

/**
 * `paymentRequirements` against `paymentPayload.accepted` (docs/facilitator-spec.md §2.3), the way `@x402/core` matches them: every
 * field outside `extra` identical (scheme aliases normalised), and every `extra` field of the requirements present
 * with the same value in `accepted` — except the per-request fields. `accepted` may carry more `extra` keys;
 * verification reads the requirements, never those. (`recentSlot`: the official `upto` server's slot hint, per request too.)
 */
export function requirementsMatch(required: PaymentRequirements, accepted: PaymentRequirements): boolean {
  const { extra: requiredExtra, ...requiredCore } = withWireScheme(required);
  const { extra: acceptedExtra, ...acceptedCore } = withWireScheme(accepted);
  if (canonicalJson(requiredCore) !== canonicalJson(acceptedCore)) return false;
  for (const [key, value] of Object.entries(requiredExtra)) {
    if (value === undefined || PER_REQUEST_EXTRA_FIELDS.has(key)) continue;
    if (!Object.hasOwn(acceptedExtra, key) || canonicalJson(acceptedExtra[key]) !== canonicalJson(value)) return false;
  }
  return true;
}

function withWireScheme(requirements: PaymentRequirements): PaymentRequirements {
  return { ...requirements, scheme: normalizeScheme(requirements.scheme) ?? requirements.scheme };
}

/** JSON with sorted keys and undefined values dropped, so key order never decides equality. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
