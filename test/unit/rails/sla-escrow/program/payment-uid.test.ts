import { describe, expect, it } from "vitest";
import {
  PAYMENT_UID_SIZE_BYTES,
  parsePaymentUidHex,
  paymentUidFromString,
  paymentUidToHex,
  randomPaymentUid,
} from "../../../../../src/rails/sla-escrow/program/payment-uid";
import { bytes, seq32, zeros } from "../../byte-vectors";

const hex0to31 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

describe("parsePaymentUidHex", () => {
  it("turns exactly 64 lowercase hex chars into 32 bytes", () => {
    expect(parsePaymentUidHex(hex0to31)).toEqual(Uint8Array.from(seq32(0)));
    expect(parsePaymentUidHex("ff".repeat(32))).toEqual(Uint8Array.from(new Array(32).fill(255)));
  });

  it("rejects anything else", () => {
    expect(parsePaymentUidHex(hex0to31.toUpperCase())).toBeNull();
    expect(parsePaymentUidHex(hex0to31.slice(0, 63))).toBeNull();
    expect(parsePaymentUidHex(`${hex0to31}0`)).toBeNull();
    expect(parsePaymentUidHex(`0x${hex0to31.slice(2)}`)).toBeNull();
    expect(parsePaymentUidHex(`g${hex0to31.slice(1)}`)).toBeNull();
    expect(parsePaymentUidHex(` ${hex0to31.slice(1)}`)).toBeNull();
    expect(parsePaymentUidHex("")).toBeNull();
  });
});

describe("paymentUidFromString", () => {
  it("removes dashes, takes ASCII bytes and zero-pads", () => {
    // "abc-def" -> "abcdef" = 61 62 63 64 65 66, then 26 zero bytes
    expect(paymentUidFromString("abc-def")).toEqual(bytes([0x61, 0x62, 0x63, 0x64, 0x65, 0x66], zeros(26)));
    expect(paymentUidFromString("")).toEqual(Uint8Array.from(zeros(32)));
  });

  it("maps a UUID to exactly its 32 hex digits", () => {
    const uuid = "123e4567-e89b-12d3-a456-426614174000";
    expect(paymentUidFromString(uuid)).toEqual(new TextEncoder().encode("123e4567e89b12d3a456426614174000"));
  });

  it("truncates to 32 bytes", () => {
    expect(paymentUidFromString("a".repeat(40))).toEqual(Uint8Array.from(new Array(32).fill(0x61)));
    expect(paymentUidFromString(`${"b".repeat(32)}-extra`)).toEqual(Uint8Array.from(new Array(32).fill(0x62)));
  });

  it("rejects non-ASCII characters", () => {
    expect(paymentUidFromString("café")).toBeNull();
    expect(paymentUidFromString("order-😀")).toBeNull();
  });
});

describe("paymentUidToHex", () => {
  it("renders 64 lowercase hex chars and round-trips", () => {
    expect(paymentUidToHex(Uint8Array.from(seq32(0)))).toBe(hex0to31);
    const parsed = parsePaymentUidHex(hex0to31);
    expect(parsed).not.toBeNull();
    if (parsed !== null) expect(paymentUidToHex(parsed)).toBe(hex0to31);
  });

  it("rejects other lengths", () => {
    expect(() => paymentUidToHex(new Uint8Array(31))).toThrow(RangeError);
  });
});

describe("randomPaymentUid", () => {
  it("returns a UUID v4 whose string and hex forms give the same 32 bytes", () => {
    const generated = randomPaymentUid();
    expect(generated.paymentUid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(generated.bytes.length).toBe(PAYMENT_UID_SIZE_BYTES);
    expect(paymentUidFromString(generated.paymentUid)).toEqual(generated.bytes);
    expect(parsePaymentUidHex(generated.paymentUidHex)).toEqual(generated.bytes);
  });

  it("differs between calls", () => {
    expect(randomPaymentUid().paymentUid).not.toBe(randomPaymentUid().paymentUid);
  });
});
