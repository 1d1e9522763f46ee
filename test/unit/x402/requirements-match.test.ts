import { describe, expect, it } from "vitest";
import { requirementsMatch, sameJson } from "../../../src/x402/requirements-match";
import type { PaymentRequirements } from "../../../src/x402/schemas";

// Plain JSON as it arrives on the wire (the schema brands addresses after validation).
const base = {
  scheme: "exact",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
  amount: "250000",
  payTo: "G2ZbQchfaJPWvdE6jdPf2nGFP5R3s2HVZNMK4gQ7pB55",
  maxTimeoutSeconds: 60,
  extra: {
    feePayer: "95SnMXZLv5GnhrJq8oPPqVrdKe8uhXJ2p9pzzEqH5FvR",
    recentBlockhash: "AAA",
    lastValidBlockHeight: 10,
  } as Record<string, unknown>,
} as unknown as PaymentRequirements;

describe("requirementsMatch (the @x402/core rule)", () => {
  it("ignores the per-request blockhash fields a seller's server recomputes for every request", () => {
    expect(
      requirementsMatch({ ...base, extra: { ...base.extra, recentBlockhash: "BBB", lastValidBlockHeight: 99 } }, base),
    ).toBe(true);
    expect(requirementsMatch({ ...base, extra: { feePayer: base.extra.feePayer } }, base)).toBe(true);
  });

  it("lets accepted carry more extra keys, but every key the requirements have must match", () => {
    expect(requirementsMatch(base, { ...base, extra: { ...base.extra, merchantWallet: "x" } })).toBe(true);
    expect(requirementsMatch({ ...base, extra: { ...base.extra, merchantWallet: "x" } }, base)).toBe(false);
    expect(requirementsMatch({ ...base, extra: { ...base.extra, feePayer: "other" } }, base)).toBe(false);
  });

  it("compares every payment term outside extra, with scheme aliases normalised", () => {
    expect(requirementsMatch({ ...base, scheme: "v2:solana:exact" }, base)).toBe(true);
    for (const change of [
      { amount: "250001" },
      { payTo: "other" },
      { asset: "other" },
      { maxTimeoutSeconds: 61 },
      { network: "solana:other" },
    ]) {
      expect(requirementsMatch({ ...base, ...change } as PaymentRequirements, base)).toBe(false);
    }
  });
});

describe("sameJson (JSON equality without key order)", () => {
  it("ignores key order and undefined members, at any depth", () => {
    expect(sameJson({ a: 1, b: { c: [1, { d: "x", e: undefined }] } }, { b: { c: [1, { d: "x" }] }, a: 1 })).toBe(true);
    expect(
      requirementsMatch(
        { ...base, extra: { lastValidBlockHeight: 10, recentBlockhash: "AAA", feePayer: base.extra.feePayer } },
        base,
      ),
    ).toBe(true);
    expect(requirementsMatch({ ...base, description: undefined } as unknown as PaymentRequirements, base)).toBe(true);
  });

  it("tells apart values, types, array order and lengths, and extra members", () => {
    const differentPairs: [unknown, unknown][] = [
      [1, "1"],
      [null, {}],
      [{}, []],
      [
        [1, 2],
        [2, 1],
      ],
      [[1], [1, 1]],
      [{ a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: 2 }, { a: 1 }],
      [{ a: { b: 1 } }, { a: { b: 2 } }],
      [
        { a: undefined, b: 1 },
        { a: null, b: 1 },
      ],
    ];
    for (const [a, b] of differentPairs) {
      expect(sameJson(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(false);
      expect(sameJson(b, a), `${JSON.stringify(b)} vs ${JSON.stringify(a)}`).toBe(false);
    }
    expect(requirementsMatch({ ...base, extra: { ...base.extra, feePayer: [base.extra.feePayer] } }, base)).toBe(false);
    expect(requirementsMatch({ ...base, resource: "https://a" } as unknown as PaymentRequirements, base)).toBe(false);
  });
});
