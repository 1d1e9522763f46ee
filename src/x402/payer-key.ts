import { decodeBase64Text, toHex } from "../chain/bytes";
import { compactU16Size, readCompactU16 } from "../chain/compact-u16";

/**
 * A rate-limit key for the wallet paying a proof: the transaction's second static account, which is the
 * buyer's signing key in every payment the facilitator accepts (index 0 is the fee payer). Reads only the
 * message prefix, not the whole transaction; null when the bytes are not a transaction (verify rejects those).
 */
export function payerKeyOf(transactionBase64: string): string | null {
  try {
    const bytes = decodeBase64Text(transactionBase64.slice(0, 512));
    if (!bytes) return null;
    const signatureCount = readCompactU16(bytes, 0, "the signature count");
    if (signatureCount < 2) return null;
    let offset = compactU16Size(signatureCount) + signatureCount * 64;
    if ((bytes[offset] ?? 0) & 0x80) offset += 1; // versioned message prefix
    offset += 3; // message header
    const accountCount = readCompactU16(bytes, offset, "the account count");
    offset += compactU16Size(accountCount);
    if (accountCount < 2 || offset + 64 > bytes.length) return null;
    return toHex(bytes.subarray(offset + 32, offset + 64));
  } catch {
    return null; // not base64, or the bytes end or are malformed before the second account
  }
}
