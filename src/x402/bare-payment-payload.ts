/**
 * The body of `/verify` and `/settle` from either kind of seller. The spec's reference seller posts the buyer's
 * header as it was sent, a bare x402 v2 `PaymentPayload` (`{x402Version, accepted, payload, …}`); the official
 * middleware wraps it as `{x402Version, paymentPayload, paymentRequirements}`. A bare payload's `accepted` is the
 * requirements the buyer agreed to, so it becomes both halves: one header a buyer can send to any seller.
 */
export function asVerifySettleBody(value: unknown): unknown {
  if (!isObject(value) || "paymentPayload" in value || "paymentRequirements" in value) return value;
  if (!isObject(value.accepted) || !("payload" in value)) return value;
  return { x402Version: value.x402Version, paymentPayload: value, paymentRequirements: value.accepted };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
