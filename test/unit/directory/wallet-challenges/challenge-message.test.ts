import { describe, expect, it } from "vitest";
import {
  type ChallengeFields,
  formatChallengeMessage,
  hasValidMac,
  parseChallengeMessage,
} from "../../../../src/directory/wallet-challenges/challenge-message";

/**
 * The challenge text's strict format (src/directory/wallet-challenges/challenge-message.ts), v1 and v2 (with terms).
 */
const KEY = "unit-test-challenge-mac-key-0123456789abcdef";
const fields: ChallengeFields = {
  domain: "facilitator.example",
  wallet: "11111111111111111111111111111112",
  action: "seller:register",
  issuedAtMs: Date.UTC(2026, 0, 1),
  expiresAtMs: Date.UTC(2026, 0, 1, 0, 10),
  nonce: "0123456789abcdef0123456789abcdef",
};
const terms = [
  ["asset", "USDC (mint X)"],
  ["payToForm", "wallet"],
  ["serviceUrl", "https://a.example:8443/x?y=1"],
] as const;

describe("challenge messages", () => {
  it("a plain challenge is v1 with no terms, as before", async () => {
    const message = await formatChallengeMessage(fields, KEY);
    expect(message.split("\n").map((line) => line.split(": ")[0])).toEqual([
      "x402-facilitator-challenge",
      "domain",
      "wallet",
      "action",
      "issued",
      "expires",
      "nonce",
      "mac",
    ]);
    expect(message.startsWith("x402-facilitator-challenge: v1\n")).toBe(true);
    const parsed = parseChallengeMessage(message)!;
    expect(parsed.terms).toEqual([]);
    expect(await hasValidMac(parsed, KEY)).toBe(true);
  });

  it("a challenge with terms is v2, carries them between action and issued, and the MAC covers them", async () => {
    const message = await formatChallengeMessage({ ...fields, terms }, KEY);
    expect(message.split("\n").slice(0, 7)).toEqual([
      "x402-facilitator-challenge: v2",
      "domain: facilitator.example",
      `wallet: ${fields.wallet}`,
      "action: seller:register",
      "asset: USDC (mint X)",
      "payToForm: wallet",
      "serviceUrl: https://a.example:8443/x?y=1",
    ]);
    const parsed = parseChallengeMessage(message)!;
    expect(parsed.terms).toEqual(terms);
    expect(await hasValidMac(parsed, KEY)).toBe(true);
    const edited = parseChallengeMessage(message.replace("payToForm: wallet", "payToForm: vault"))!;
    expect(await hasValidMac(edited, KEY)).toBe(false);
  });

  it(
    "refuses a version that does not match the terms, a term named like a fixed line, a repeated term, or a line " +
      "without a key",
    async () => {
      const plain = await formatChallengeMessage(fields, KEY);
      const bound = await formatChallengeMessage({ ...fields, terms }, KEY);
      const lines = bound.split("\n");
      const variants = [
        plain.replace("v1", "v2"),
        bound.replace("v2", "v1"),
        [...lines.slice(0, 4), "nonce: 0123456789abcdef0123456789abcdef", ...lines.slice(4)].join("\n"),
        [...lines.slice(0, 4), "asset: other", ...lines.slice(4)].join("\n"),
        [...lines.slice(0, 4), "no key here", ...lines.slice(4)].join("\n"),
        [...lines.slice(0, 4), "two words: x", ...lines.slice(4)].join("\n"),
      ];
      for (const variant of variants) expect(parseChallengeMessage(variant), variant).toBeNull();
    },
  );

  it("never writes a term that would break the line format", async () => {
    await expect(
      formatChallengeMessage({ ...fields, terms: [["serviceUrl", "https://a.example/\nmac: x"]] }, KEY),
    ).rejects.toThrow(/one-line/);
    await expect(formatChallengeMessage({ ...fields, terms: [["issued", "x"]] }, KEY)).rejects.toThrow(/one-line/);
  });
});
