import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeWireTransaction } from "../../../src/chain/wire-transaction";

/**
 * The hand-written wire decoder on the verify path against kit's codecs (the reference): same fields for real
 * transactions, and a failure for every malformed variant (truncation, trailing bytes, signature count, version,
 * indices, duplicate keys) instead of a half-read transaction.
 */
const toBytes = getBase64Encoder();
const toText = getBase64Decoder();

async function sampleTransaction(version: "legacy" | 0): Promise<string> {
  const [feePayer, buyer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  const program = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
  const other = (await generateKeyPairSigner()).address;
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Blockhash, lastValidBlockHeight: 100n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          {
            programAddress: address("ComputeBudget111111111111111111111111111111"),
            data: Uint8Array.from([2, 0x40, 0x0d, 0x03, 0]),
          },
          {
            programAddress: program,
            accounts: [
              { address: other, role: 1 },
              { address: buyer.address, role: 2 },
            ],
            data: Uint8Array.from([12, 1, 2, 3, 4, 5, 6, 7, 8, 6]),
          },
        ],
        m,
      ),
  );
  const signed = await partiallySignTransaction([buyer.keyPair], compileTransaction(message));
  return getBase64EncodedWireTransaction(signed);
}

function expectSameAsKit(base64: string): void {
  const result = decodeWireTransaction(base64);
  if (!result.ok) throw new Error(result.message);
  const tx = result.tx;
  const kitTx = getTransactionDecoder().decode(toBytes.encode(base64));
  const kitMessage = getCompiledTransactionMessageDecoder().decode(kitTx.messageBytes) as unknown as {
    version: "legacy" | 0;
    staticAccounts: string[];
    lifetimeToken: string;
    header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
    instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
  };
  expect(Array.from(tx.messageBytes)).toEqual(Array.from(kitTx.messageBytes));
  expect(tx.version).toBe(kitMessage.version);
  expect(tx.staticAccounts).toEqual(kitMessage.staticAccounts);
  expect(tx.recentBlockhash).toBe(kitMessage.lifetimeToken);
  expect(tx.numRequiredSignatures).toBe(kitMessage.header.numSignerAccounts);
  expect(tx.numReadonlySignedAccounts).toBe(kitMessage.header.numReadonlySignerAccounts);
  expect(tx.numReadonlyUnsignedAccounts).toBe(kitMessage.header.numReadonlyNonSignerAccounts);
  expect(tx.feePayer).toBe(kitMessage.staticAccounts[0]);
  expect(
    tx.instructions.map((ix) => ({ program: ix.programAddress, accounts: ix.accounts, data: Array.from(ix.data) })),
  ).toEqual(
    kitMessage.instructions.map((ix) => ({
      program: kitMessage.staticAccounts[ix.programAddressIndex],
      accounts: (ix.accountIndices ?? []).map((i) => kitMessage.staticAccounts[i]),
      data: Array.from(ix.data ?? []),
    })),
  );
  const kitSignatures = kitMessage.staticAccounts
    .slice(0, kitMessage.header.numSignerAccounts)
    .map((signer) => (kitTx.signatures as Record<string, Uint8Array | null>)[signer]);
  expect(tx.signatures.map((s) => (s ? Array.from(s) : null))).toEqual(
    kitSignatures.map((s) => (s ? Array.from(s) : null)),
  );
  expect(tx.signatures[0]).toBeNull(); // the fee payer's slot is left empty by the buyer
  expect(tx.wireBase64).toBe(base64);
  expect(tx.usesAddressLookupTables).toBe(false);
}

function mutate(base64: string, change: (bytes: Uint8Array) => Uint8Array): string {
  return toText.decode(change(new Uint8Array(toBytes.encode(base64))));
}

describe("decodeWireTransaction", () => {
  it("reads legacy and v0 transactions exactly as kit does", async () => {
    expectSameAsKit(await sampleTransaction(0));
    expectSameAsKit(await sampleTransaction("legacy"));
  });

  it("fails on every truncation and on a trailing byte", async () => {
    const base64 = await sampleTransaction(0);
    const length = toBytes.encode(base64).length;
    for (let cut = 0; cut < length; cut++) {
      expect(decodeWireTransaction(mutate(base64, (b) => b.slice(0, cut))).ok, `cut at ${cut}`).toBe(false);
    }
    const trailing = decodeWireTransaction(mutate(base64, (b) => Uint8Array.from([...b, 0])));
    expect(trailing).toEqual({ ok: false, message: expect.stringContaining("trailing bytes") });
  });

  it("fails when the signature count differs from the header's signer count", async () => {
    const base64 = await sampleTransaction(0);
    // Drop the second signature and lower the count: the message still requires two signers.
    const result = decodeWireTransaction(
      mutate(base64, (b) => Uint8Array.from([1, ...b.subarray(1, 65), ...b.subarray(129)])),
    );
    expect(result).toEqual({ ok: false, message: expect.stringContaining("requires 2") });
  });

  it("fails on an unsupported message version, an out-of-range index and a duplicated account key", async () => {
    const base64 = await sampleTransaction(0);
    const messageStart = 1 + 2 * 64;
    const version = decodeWireTransaction(
      mutate(base64, (b) => {
        const c = b.slice();
        c[messageStart] = 0x81;
        return c;
      }),
    );
    expect(version).toEqual({ ok: false, message: expect.stringContaining("version 1 is not supported") });

    const tx = (decodeWireTransaction(base64) as { ok: true; tx: { staticAccounts: string[] } }).tx;
    const accountsStart = messageStart + 1 + 3 + 1;
    const instructionsStart = accountsStart + tx.staticAccounts.length * 32 + 32 + 1;
    const badIndex = decodeWireTransaction(
      mutate(base64, (b) => {
        const c = b.slice();
        c[instructionsStart] = 200;
        return c;
      }),
    );
    expect(badIndex).toEqual({ ok: false, message: expect.stringContaining("out of range") });

    const duplicate = decodeWireTransaction(
      mutate(base64, (b) => {
        const c = b.slice();
        c.copyWithin(accountsStart + 32 * 2, accountsStart + 32 * 3, accountsStart + 32 * 4);
        return c;
      }),
    );
    expect(duplicate).toEqual({ ok: false, message: expect.stringContaining("twice") });
  });

  it("fails on text that is not a transaction", () => {
    expect(decodeWireTransaction(btoa("garbage that is not a transaction")).ok).toBe(false);
    expect(decodeWireTransaction("").ok).toBe(false);
  });
});
