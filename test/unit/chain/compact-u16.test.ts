import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getShortU16Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { toHex } from "../../../src/chain/bytes";
import { compactU16Size, readCompactU16 } from "../../../src/chain/compact-u16";
import { signAsFeePayer } from "../../../src/chain/fee-payer-signature";
import { decodeWireTransaction } from "../../../src/chain/wire-transaction";
import type { Config } from "../../../src/platform/config/load-config";
import { payerKeyOf } from "../../../src/x402/payer-key";

/**
 * The one compact-u16 reader against kit's short-u16 codec (the reference), and the three places that read the
 * wire format with it: the decoder on the verify path, the payer rate-limit key, the fee-payer signature slot.
 */
const shortU16 = getShortU16Encoder();

describe("readCompactU16", () => {
  it("reads u16 values exactly as kit writes them, at any offset, and knows their size", () => {
    const values = [
      ...Array.from({ length: 0x4100 }, (_, i) => i),
      ...Array.from({ length: 680 }, (_, i) => 0x4100 + i * 71),
      0xfffe,
      0xffff,
    ];
    for (const value of values) {
      const encoded = new Uint8Array(shortU16.encode(value));
      const bytes = Uint8Array.from([9, 9, ...encoded, 7]);
      expect(readCompactU16(bytes, 2, "n")).toBe(value);
      expect(compactU16Size(value)).toBe(encoded.length);
    }
  });

  it("refuses a non-canonical form, a value over u16, a fourth byte and the end of the bytes", () => {
    expect(() => readCompactU16(Uint8Array.from([0x81, 0x00]), 0, "the count")).toThrow(
      "the count is not a canonical compact-u16",
    );
    expect(() => readCompactU16(Uint8Array.from([0x80, 0x80, 0x00]), 0, "the count")).toThrow("not a canonical");
    expect(() => readCompactU16(Uint8Array.from([0xff, 0xff, 0x04]), 0, "the count")).toThrow("the count exceeds u16");
    expect(() => readCompactU16(Uint8Array.from([0x80, 0x80, 0x80, 0x01]), 0, "the count")).toThrow(
      "the count is not a compact-u16",
    );
    expect(() => readCompactU16(Uint8Array.from([0x80]), 0, "the count")).toThrow("transaction ends inside the count");
    expect(() => readCompactU16(new Uint8Array(0), 0, "the count")).toThrow("transaction ends inside the count");
  });
});

async function twoSignerTransaction(feePayer: KeyPairSigner, buyer: KeyPairSigner): Promise<string> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Blockhash, lastValidBlockHeight: 1n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          {
            programAddress: address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
            accounts: [{ address: buyer.address, role: 2 }],
            data: new TextEncoder().encode("x"),
          },
        ],
        m,
      ),
  );
  return getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.keyPair], compileTransaction(message)));
}

const withSignatureCount = (base64: string, prefix: number[]): string => {
  const bytes = new Uint8Array(getBase64Encoder().encode(base64));
  return getBase64Decoder().decode(Uint8Array.from([...prefix, ...bytes.subarray(1)]));
};

describe("the wire readers that use it", () => {
  it(
    "payerKeyOf names the buyer (the second account), and nothing for a non-canonical count or for " + "garbage",
    async () => {
      const [feePayer, buyer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
      const wire = await twoSignerTransaction(feePayer, buyer);
      expect(payerKeyOf(wire)).toBe(toHex(new Uint8Array(getAddressEncoder().encode(buyer.address))));
      expect(payerKeyOf(withSignatureCount(wire, [0x82, 0x00]))).toBeNull();
      expect(payerKeyOf("not base64 at all!")).toBeNull();
      expect(payerKeyOf(btoa("\u0002short"))).toBeNull();
    },
  );

  it("the verify decoder refuses a non-canonical account count", async () => {
    const [feePayer, buyer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const wire = await twoSignerTransaction(feePayer, buyer);
    expect(decodeWireTransaction(wire).ok).toBe(true);
    const bytes = new Uint8Array(getBase64Encoder().encode(wire));
    const accountCountAt = 1 + 2 * 64 + 1 + 3; // signatures, v0 prefix, header
    const count = bytes[accountCountAt]!;
    const padded = Uint8Array.from([
      ...bytes.subarray(0, accountCountAt),
      count | 0x80,
      0x00,
      ...bytes.subarray(accountCountAt + 1),
    ]);
    expect(decodeWireTransaction(getBase64Decoder().decode(padded))).toEqual({
      ok: false,
      message: "transaction could not be decoded (the account count is not a canonical compact-u16)",
    });
  });

  it("signAsFeePayer puts a valid fee-payer signature in the first slot and keeps the buyer's", async () => {
    const [feePayer, buyer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const decoded = decodeWireTransaction(await twoSignerTransaction(feePayer, buyer));
    if (!decoded.ok) throw new Error(decoded.message);
    const { wireBytes } = await signAsFeePayer({ feePayer } as unknown as Config, decoded.tx);
    const signed = getTransactionDecoder().decode(wireBytes);
    const signatures = signed.signatures as Record<string, Uint8Array | null>;
    expect(
      await verifySignature(feePayer.keyPair.publicKey, signatures[feePayer.address] as never, signed.messageBytes),
    ).toBe(true);
    expect(
      await verifySignature(buyer.keyPair.publicKey, signatures[buyer.address] as never, signed.messageBytes),
    ).toBe(true);
  });
});
