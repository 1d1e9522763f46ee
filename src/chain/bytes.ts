/** Base64 of raw bytes without intermediate strings per byte (hot path: every verify and settle). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The bytes of base64 text (an RPC answer's account data). */
export function fromBase64(text: string): Uint8Array {
  return bytesOfBinaryString(atob(text));
}

const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of base64 text from a caller, or null when it is not base64 (a character outside the alphabet, padding
 * inside it, an impossible length). Padding may be left out. One native decode: kit's encoder decoded the text twice
 * and scanned it twice more, a measurable share of a /verify.
 */
export function decodeBase64Text(text: string): Uint8Array | null {
  if (!BASE64_TEXT.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  return bytesOfBinaryString(binary);
}

function bytesOfBinaryString(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Whether `text` is exactly the canonical (RFC 4648, padded) base64 of `byteLength` bytes: the form every decoder,
 * the cluster's included, reads the same way. Lenient decoders also take whitespace, missing padding or stray
 * low bits in the last character; such text is re-encoded before it is passed on.
 */
export function isCanonicalBase64(text: string, byteLength: number): boolean {
  if (text.length !== Math.ceil(byteLength / 3) * 4) return false;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return false;
  const remainder = byteLength % 3;
  if (remainder === 0) return !text.endsWith("=");
  const padding = remainder === 1 ? 2 : 1;
  if (!text.endsWith("=".repeat(padding)) || text[text.length - padding - 1] === "=") return false;
  // The last data character carries 4 (one byte left) or 2 (two bytes left) unused low bits; they must be zero.
  const last = BASE64_ALPHABET.indexOf(text[text.length - padding - 1]!);
  return (last & (remainder === 1 ? 0b1111 : 0b11)) === 0;
}
