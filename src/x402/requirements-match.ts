import type { PaymentRequirements } from "./schemas";
import { normalizeScheme } from "./scheme-names";

/**
 * `paymentRequirements` must be identical to `paymentPayload.accepted` (spec §2.3), after scheme aliases are
 * normalised on both. Key order does not matter; every value does.
 */
export function requirementsMatch(a: PaymentRequirements, b: PaymentRequirements): boolean {
  return canonicalJson(withWireScheme(a)) === canonicalJson(withWireScheme(b));
}

function withWireScheme(requirements: PaymentRequirements): PaymentRequirements {
  return { ...requirements, scheme: normalizeScheme(requirements.scheme) ?? requirements.scheme };
}

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
