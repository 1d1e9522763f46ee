/**
 * Solana's compact-u16 ("short vec" length): 7 bits a byte, low bits first, 1-3 bytes. Only the canonical (shortest)
 * form is read, as the cluster does, so a value's size follows from the value itself (`compactU16Size`).
 * Throws a RangeError naming `what` when the bytes end, the encoding is not canonical, or the value exceeds u16.
 */
export function readCompactU16(bytes: Uint8Array, offset: number, what: string): number {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new RangeError(`transaction ends inside ${what}`);
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) {
      if (i > 0 && byte === 0) throw new RangeError(`${what} is not a canonical compact-u16`);
      if (value > 0xffff) throw new RangeError(`${what} exceeds u16`);
      return value;
    }
  }
  throw new RangeError(`${what} is not a compact-u16`);
}

/** How many bytes the canonical compact-u16 of `value` takes. */
export function compactU16Size(value: number): 1 | 2 | 3 {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : 3;
}
