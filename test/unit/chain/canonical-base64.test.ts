import { getBase64Encoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeBase64Text, isCanonicalBase64, toBase64 } from "../../../src/chain/bytes";

/** The verify path forwards the buyer's base64 to simulateTransaction only when it is canonical; else it re-encodes. */
describe("isCanonicalBase64", () => {
  it("accepts exactly what toBase64 produces, for every remainder of the length", () => {
    for (const length of [0, 1, 2, 3, 4, 5, 64, 299, 300, 301]) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      expect(isCanonicalBase64(toBase64(bytes), length), `length ${length}`).toBe(true);
    }
  });

  it("refuses text a lenient decoder reads as the same bytes but a strict one may not", () => {
    const bytes = Uint8Array.from([0xfb, 0xff, 0x01, 0x02]); // "+/8BAg=="
    const canonical = toBase64(bytes);
    expect(canonical).toBe("+/8BAg==");
    expect(isCanonicalBase64("+/8BAh==", 4)).toBe(false); // stray low bits in the last character
    expect(isCanonicalBase64("+/8BAg", 4)).toBe(false); // padding missing
    expect(isCanonicalBase64("+/8B Ag=", 4)).toBe(false); // whitespace
    expect(isCanonicalBase64("-_8BAg==", 4)).toBe(false); // URL-safe alphabet
    expect(isCanonicalBase64("+/8BAg==", 5)).toBe(false); // another length
    expect(isCanonicalBase64("AQI=", 2)).toBe(true);
    expect(isCanonicalBase64("AQJ=", 2)).toBe(false); // 0x01 0x02 plus a stray low bit
    expect(isCanonicalBase64("AQ=A", 2)).toBe(false);
  });
});

/** The wire transaction's decoder (verify, settle, the payer's rate-limit key): one native decode, strict alphabet. */
describe("decodeBase64Text", () => {
  it("reads what kit's base64 encoder reads, padded or not", () => {
    const kit = getBase64Encoder();
    for (const length of [0, 1, 2, 3, 4, 5, 64, 299, 300, 301, 1232]) {
      const text = toBase64(crypto.getRandomValues(new Uint8Array(length)));
      for (const variant of [text, text.replace(/=+$/, "")]) {
        expect(decodeBase64Text(variant), `length ${length} ${variant === text ? "padded" : "unpadded"}`).toEqual(
          new Uint8Array(kit.encode(variant)),
        );
      }
    }
  });

  it("refuses text outside the base64 alphabet, padding inside it, and impossible lengths", () => {
    for (const text of ["+/8B Ag==", "-_8BAg==", "AQ=A", "A===", "AQI=AQI=", "A", "AQIDB", "aGVsbG8\n", "ü"]) {
      expect(decodeBase64Text(text), JSON.stringify(text)).toBeNull();
    }
  });
});
