import { getBase64Encoder } from "@solana/kit";
import { toHex } from "../solana/bytes";

const base64 = getBase64Encoder();

/**
 * A rate-limit key for the wallet paying a proof: the transaction's second static account, which is the
 * buyer's signing key in every payment the facilitator accepts (index 0 is the fee payer). Reads only the
 * message prefix, not the whole transaction; null when the bytes are not a transaction (verify rejects those).
 */
export function payerKeyOf(transactionBase64: string): string | null {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(base64.encode(transactionBase64.slice(0, 512)));
  } catch {
    return null;
  }
  let offset = 0;
  const readCompactU16 = (): number | null => {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = bytes[offset++];
      if (byte === undefined) return null;
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    return null;
  };
  const signatureCount = readCompactU16();
  if (signatureCount === null || signatureCount < 2) return null;
  offset += signatureCount * 64;
  if ((bytes[offset] ?? 0) & 0x80) offset += 1; // versioned message prefix
  offset += 3; // message header
  const accountCount = readCompactU16();
  if (accountCount === null || accountCount < 2 || offset + 64 > bytes.length) return null;
  return toHex(bytes.subarray(offset + 32, offset + 64));
}
