import { type PaymentRejection, rejection } from "./payment-verdict";
import type { PaymentPayload } from "./schemas";

/**
 * The x402 `payment-identifier` extension (specs/extensions/payment_identifier.md;
 * `@x402/extensions/payment-identifier`): the client's idempotency id in
 * `paymentPayload.extensions["payment-identifier"].info.id`. Settle records it with the settlement and refuses a
 * different payment under an id already used (409, as the extension specifies).
 */
export const PAYMENT_IDENTIFIER = "payment-identifier";

/** 16–128 characters of `[A-Za-z0-9_-]` (the extension's PAYMENT_ID_PATTERN and length bounds). */
const PAYMENT_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** The id a payment carries (null: the extension is absent or carries no id), or why the extension is malformed. */
export function paymentIdentifierOf(payload: PaymentPayload): { ok: true; id: string | null } | PaymentRejection {
  const extension = payload.extensions?.[PAYMENT_IDENTIFIER];
  if (extension === undefined) return NONE;
  const info = isObject(extension) ? extension.info : undefined;
  if (!isObject(info))
    return rejection("invalid_payload", `paymentPayload.extensions.${PAYMENT_IDENTIFIER}.info: must be an object`);
  const id = info.id;
  if (id === undefined || id === null) {
    if (info.required === true)
      return rejection(
        "payment_identifier_required",
        `The server requires a ${PAYMENT_IDENTIFIER} id and the payment carries none`,
      );
    return NONE;
  }
  if (typeof id !== "string" || !PAYMENT_ID.test(id)) {
    return rejection(
      "payment_identifier_invalid",
      `paymentPayload.extensions.${PAYMENT_IDENTIFIER}.info.id: must be 16-128 characters of A-Z a-z 0-9 _ -`,
    );
  }
  return { ok: true, id };
}

const NONE = { ok: true, id: null } as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
