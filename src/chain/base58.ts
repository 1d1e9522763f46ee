/**
 * Base58 (Bitcoin alphabet) for the hot path: addresses (32 bytes), blockhashes and signatures (64 bytes).
 * kit's codec converts through BigInt and intermediate arrays; on /verify it ran for every static account of every
 * transaction and every address in the body (~11% of the Worker's CPU in the profile). This is the plain
 * byte-by-byte radix conversion on typed arrays: same output, no BigInt, one small allocation per call.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGIT_BY_CHAR_CODE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_BY_CHAR_CODE[ALPHABET.charCodeAt(i)] = i;

/** Bytes → base58 text (leading zero bytes become leading '1's). */
export function encodeBase58(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let zeros = 0;
  while (start + zeros < end && bytes[start + zeros] === 0) zeros++;
  // log(256) / log(58) ≈ 1.366: digits needed for the non-zero part.
  const size = (((end - start - zeros) * 138) / 100 + 1) | 0;
  const digits = new Uint8Array(size);
  let used = 0;
  for (let i = start + zeros; i < end; i++) {
    let carry = bytes[i]!;
    let k = size - 1;
    let j = 0;
    for (; (carry !== 0 || j < used) && k >= 0; k--, j++) {
      carry += 256 * digits[k]!;
      digits[k] = carry % 58;
      carry = (carry / 58) | 0;
    }
    used = j;
  }
  let out = "1".repeat(zeros);
  for (let k = size - used; k < size; k++) out += ALPHABET[digits[k]!];
  return out;
}

/**
 * The address of the 32 bytes at `start`, remembered per isolate: most accounts of a payment (programs, mints, the
 * fee payer, vaults, sysvars) recur in every transaction, so the lookup key (the bytes as a Latin-1 string) is
 * far cheaper than the radix conversion. Bounded; safe to lose.
 */
const MAX_CACHED_ADDRESSES = 4096;
const addressByBytes = new Map<string, string>();

export function encodeAddressAt(bytes: Uint8Array, start: number): string {
  const key = String.fromCharCode.apply(null, bytes.subarray(start, start + 32) as unknown as number[]);
  let text = addressByBytes.get(key);
  if (text === undefined) {
    text = encodeBase58(bytes, start, start + 32);
    if (addressByBytes.size >= MAX_CACHED_ADDRESSES) addressByBytes.clear();
    addressByBytes.set(key, text);
  }
  return text;
}

/** Base58 text → bytes, or null when a character is outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | null {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // log(58) / log(256) ≈ 0.733: bytes needed for the rest.
  const size = (((text.length - zeros) * 733) / 1000 + 1) | 0;
  const bytes = new Uint8Array(size);
  let used = 0;
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? DIGIT_BY_CHAR_CODE[code]! : -1;
    if (carry < 0) return null;
    let k = size - 1;
    let j = 0;
    for (; (carry !== 0 || j < used) && k >= 0; k--, j++) {
      carry += 58 * bytes[k]!;
      bytes[k] = carry & 0xff;
      carry >>>= 8;
    }
    used = j;
  }
  const out = new Uint8Array(zeros + used);
  out.set(bytes.subarray(size - used), zeros);
  return out;
}

/** Addresses already seen valid (payTo, asset and the like recur in every body); bounded, safe to lose. */
const knownAddresses = new Set<string>();

/** Same contract as kit's `isAddress`: 32 to 44 base58 characters that decode to exactly 32 bytes. */
export function isBase58Address(text: string): boolean {
  if (text.length < 32 || text.length > 44) return false;
  if (knownAddresses.has(text)) return true;
  const bytes = decodeBase58(text);
  if (bytes === null || bytes.length !== 32) return false;
  if (knownAddresses.size >= MAX_CACHED_ADDRESSES) knownAddresses.clear();
  knownAddresses.add(text);
  return true;
}
