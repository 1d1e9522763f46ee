/**
 * The 32-byte payment uid of SLA-Escrow (seed of the Payment PDA and a FundPayment field). Clients give
 * it as `paymentUidHex` (exactly 64 lowercase hex chars) or as a `paymentUid` string (dashes removed,
 * ASCII bytes, zero-padded or truncated to 32). Parsers return null on bad input instead of throwing,
 * since they run on request bodies.
 */
import type { ReadonlyUint8Array } from "@solana/kit";

export const PAYMENT_UID_SIZE_BYTES = 32;

const LOWERCASE_HEX_64 = /^[0-9a-f]{64}$/;
const HEX_BY_BYTE: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Exactly 64 lowercase hex chars → 32 bytes; anything else (uppercase, 0x prefix, other length) → null. */
export function parsePaymentUidHex(hex: string): Uint8Array | null {
  if (!LOWERCASE_HEX_64.test(hex)) return null;
  const bytes = new Uint8Array(PAYMENT_UID_SIZE_BYTES);
  for (let index = 0; index < PAYMENT_UID_SIZE_BYTES; index++) {
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  }
  return bytes;
}

/**
 * `paymentUid` string → 32 bytes: remove every '-', take the ASCII bytes, zero-pad or truncate to 32.
 * Returns null if a character is outside ASCII: the ABI speaks of ASCII bytes only, and guessing an
 * encoding (UTF-8 vs Latin-1) could derive a different Payment PDA than the client did.
 * A UUID gives exactly 32 bytes (its 32 hex digits).
 */
export function paymentUidFromString(paymentUid: string): Uint8Array | null {
  const compact = paymentUid.replaceAll("-", "");
  const bytes = new Uint8Array(PAYMENT_UID_SIZE_BYTES);
  for (let index = 0; index < compact.length; index++) {
    const code = compact.charCodeAt(index);
    if (code > 0x7f) return null;
    if (index < PAYMENT_UID_SIZE_BYTES) bytes[index] = code;
  }
  return bytes;
}

/** 32 bytes → 64 lowercase hex chars (the `paymentUidHex` form). */
export function paymentUidToHex(paymentUid: ReadonlyUint8Array): string {
  if (paymentUid.length !== PAYMENT_UID_SIZE_BYTES) {
    throw new RangeError(`payment uid must be exactly 32 bytes, got ${paymentUid.length}`);
  }
  let hex = "";
  for (const byte of paymentUid) hex += HEX_BY_BYTE[byte];
  return hex;
}

interface GeneratedPaymentUid {
  /** A random UUID v4 string; `paymentUidFromString(paymentUid)` gives `bytes`. */
  paymentUid: string;
  /** Hex of `bytes`; `parsePaymentUidHex(paymentUidHex)` gives `bytes`. */
  paymentUidHex: string;
  bytes: Uint8Array;
}

/**
 * A fresh uid in both wire forms, for builders given neither. It is a UUID v4 (122 random bits from
 * crypto.getRandomValues) so that the string form maps to the same 32 bytes as the hex form.
 */
export function randomPaymentUid(): GeneratedPaymentUid {
  const random = crypto.getRandomValues(new Uint8Array(16));
  random[6] = ((random[6] ?? 0) & 0x0f) | 0x40; // version 4
  random[8] = ((random[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  let digits = "";
  for (const byte of random) digits += HEX_BY_BYTE[byte];
  const paymentUid = [
    digits.slice(0, 8),
    digits.slice(8, 12),
    digits.slice(12, 16),
    digits.slice(16, 20),
    digits.slice(20),
  ].join("-");
  const bytes = new TextEncoder().encode(digits); // 32 ASCII bytes, exactly what paymentUidFromString yields
  return { paymentUid, paymentUidHex: paymentUidToHex(bytes), bytes };
}
