import { getBase58Decoder, getBase58Encoder, isAddress } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeBase58, encodeAddressAt, encodeBase58, isBase58Address } from "../../../src/chain/base58";

/** The hot-path base58 must read and write exactly what kit's codec does (kit is the reference here). */
const kitToText = getBase58Decoder();
const kitToBytes = getBase58Encoder();

function randomBytes(length: number, leadingZeros: number): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  bytes.fill(0, 0, Math.min(leadingZeros, length));
  return bytes;
}

describe("base58", () => {
  it("encodes like kit for 0..64 bytes, with and without leading zero bytes", () => {
    for (let length = 0; length <= 64; length++) {
      for (const zeros of [0, 1, 3, length]) {
        const bytes = randomBytes(length, zeros);
        const text = encodeBase58(bytes);
        expect(text, `length ${length}, zeros ${zeros}`).toBe(kitToText.decode(bytes));
        expect(Array.from(decodeBase58(text)!)).toEqual(Array.from(kitToBytes.encode(text)));
      }
    }
  });

  it("encodes a window of a larger buffer without copying it", () => {
    const buffer = randomBytes(96, 0);
    buffer.fill(0, 32, 34);
    expect(encodeBase58(buffer, 32, 64)).toBe(kitToText.decode(buffer.subarray(32, 64)));
  });

  it("remembers addresses by their bytes: repeated and distinct keys give kit's text", () => {
    const buffer = randomBytes(64, 0);
    for (let round = 0; round < 3; round++) {
      expect(encodeAddressAt(buffer, 0)).toBe(kitToText.decode(buffer.subarray(0, 32)));
      expect(encodeAddressAt(buffer, 32)).toBe(kitToText.decode(buffer.subarray(32, 64)));
    }
    const zeros = new Uint8Array(32);
    expect(encodeAddressAt(zeros, 0)).toBe("11111111111111111111111111111111");
  });

  it("refuses characters outside the alphabet", () => {
    for (const bad of ["0", "O", "I", "l", "+", "é", " "]) {
      expect(decodeBase58(`abc${bad}def`), bad).toBeNull();
    }
  });

  it("accepts as an address exactly what kit's isAddress accepts", () => {
    const samples = [
      "11111111111111111111111111111111",
      "So11111111111111111111111111111111111111112",
      "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      "1111111111111111111111111111111", // 31 chars
      "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", // 44 chars, > 32 bytes
      "JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG0", // 45 chars
      "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncD0", // bad character
      "",
    ];
    for (let i = 0; i < 200; i++)
      samples.push(encodeBase58(randomBytes(32, i % 4)), encodeBase58(randomBytes(31 + (i % 3), 0)));
    // Twice: the second pass answers from the remembered set and must agree too.
    for (let pass = 0; pass < 2; pass++)
      for (const text of samples) expect(isBase58Address(text), text).toBe(isAddress(text));
  });
});
