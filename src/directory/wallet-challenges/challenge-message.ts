import { base64urlnopad } from "@scure/base";
import { shareOnceFulfilled } from "../../platform/cache/share-once-fulfilled";
import type { ChallengeAction } from "./challenge-actions";
import { isChallengeAction } from "./challenge-actions";

/**
 * The text a seller signs. Stateless by design: every field is in the text and the server's HMAC over the
 * other lines proves the server issued it unchanged, so no storage is needed until the one-time consumption.
 *
 *   x402-facilitator-challenge: v1
 *   domain: facilitator.example
 *   wallet: <base58>
 *   action: seller:register
 *   issued: 2025-01-01T00:00:00.000Z
 *   expires: 2025-01-01T00:10:00.000Z
 *   nonce: <32 hex>
 *   mac: <base64url HMAC-SHA256 of the lines above, joined by "\n">
 *
 * A challenge issued for given terms (the registration a seller signs for: docs/wire-notes.md "Sellers") is `v2`:
 * the same lines with the terms, one `key: value` line each, between `action` and `issued`, so the wallet shows them
 * and both the MAC and the wallet's signature cover them. A `v1` message has no terms line; clients sign either
 * as opaque text.
 */
export const CHALLENGE_VERSION = "v1";
export const BOUND_CHALLENGE_VERSION = "v2";
const HEAD_KEYS = ["x402-facilitator-challenge", "domain", "wallet", "action"] as const;
const TAIL_KEYS = ["issued", "expires", "nonce", "mac"] as const;
const NONCE_PATTERN = /^[0-9a-f]{32}$/;
/** A term's key: a word that is none of the fixed keys, so no term line can pass for one of them. */
const TERM_KEY_PATTERN = /^[a-zA-Z]{1,32}$/;
const RESERVED_KEYS: readonly string[] = [...HEAD_KEYS, ...TAIL_KEYS];
export const MAX_CHALLENGE_TERMS = 8;

/** One signed term: its key and its one-line value. */
export type ChallengeTerm = readonly [key: string, value: string];

export interface ChallengeFields {
  domain: string;
  wallet: string;
  action: ChallengeAction;
  /**
   * What the challenge is issued for (a `v2` message); empty or absent: a `v1` challenge that binds no request body.
   */
  terms?: readonly ChallengeTerm[];
  issuedAtMs: number;
  expiresAtMs: number;
  nonce: string;
}

export interface ParsedChallenge extends ChallengeFields {
  terms: readonly ChallengeTerm[];
  /** The lines the MAC covers, exactly as received. */
  signedPart: string;
  mac: string;
}

export function randomChallengeNonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unmacedLines(fields: ChallengeFields): string {
  const terms = fields.terms ?? [];
  if (terms.length > MAX_CHALLENGE_TERMS) throw new Error(`a challenge carries at most ${MAX_CHALLENGE_TERMS} terms`);
  for (const [key, value] of terms) {
    // A bug, not an input error: callers pass one-line values (a URL as its parsed href, free text only as a digest).
    if (!TERM_KEY_PATTERN.test(key) || RESERVED_KEYS.includes(key) || /[\r\n]/.test(value))
      throw new Error(`challenge term ${JSON.stringify(key)} is not a one-line key: value`);
  }
  return [
    `x402-facilitator-challenge: ${terms.length > 0 ? BOUND_CHALLENGE_VERSION : CHALLENGE_VERSION}`,
    `domain: ${fields.domain}`,
    `wallet: ${fields.wallet}`,
    `action: ${fields.action}`,
    ...terms.map(([key, value]) => `${key}: ${value}`),
    `issued: ${new Date(fields.issuedAtMs).toISOString()}`,
    `expires: ${new Date(fields.expiresAtMs).toISOString()}`,
    `nonce: ${fields.nonce}`,
  ].join("\n");
}

export async function formatChallengeMessage(fields: ChallengeFields, macKey: string): Promise<string> {
  const signedPart = unmacedLines(fields);
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", await hmacKey(macKey), new TextEncoder().encode(signedPart)),
  );
  return `${signedPart}\nmac: ${base64urlnopad.encode(mac)}`;
}

/**
 * Strict parse: the fixed `key: value` lines in this order, nothing else; in a `v2` message one to
 * MAX_CHALLENGE_TERMS term lines between `action` and `issued`, in a `v1` message none. Null on any deviation.
 */
export function parseChallengeMessage(message: string): ParsedChallenge | null {
  const lines = message.split("\n");
  const termCount = lines.length - HEAD_KEYS.length - TAIL_KEYS.length;
  if (termCount < 0 || termCount > MAX_CHALLENGE_TERMS) return null;
  const keyed = lines.map(splitLine);
  const head = keyed.slice(0, HEAD_KEYS.length);
  const termLines = keyed.slice(HEAD_KEYS.length, HEAD_KEYS.length + termCount);
  const tail = keyed.slice(HEAD_KEYS.length + termCount);
  if (!HEAD_KEYS.every((key, i) => head[i]?.[0] === key) || !TAIL_KEYS.every((key, i) => tail[i]?.[0] === key))
    return null;
  const terms: ChallengeTerm[] = [];
  for (const term of termLines) {
    if (
      term === null ||
      !TERM_KEY_PATTERN.test(term[0]) ||
      RESERVED_KEYS.includes(term[0]) ||
      terms.some(([key]) => key === term[0])
    )
      return null;
    terms.push(term);
  }
  const [version, domain, wallet, action] = head.map((line) => line![1]) as [string, string, string, string];
  const [issued, expires, nonce, mac] = tail.map((line) => line![1]) as [string, string, string, string];
  if (version !== (termCount > 0 ? BOUND_CHALLENGE_VERSION : CHALLENGE_VERSION)) return null;
  if (!isChallengeAction(action) || !NONCE_PATTERN.test(nonce)) return null;
  const issuedAtMs = parseIsoExact(issued);
  const expiresAtMs = parseIsoExact(expires);
  if (issuedAtMs === null || expiresAtMs === null) return null;
  return {
    domain,
    wallet,
    action,
    terms,
    issuedAtMs,
    expiresAtMs,
    nonce,
    mac,
    signedPart: lines.slice(0, -1).join("\n"),
  };
}

/** `key: value` split at the first ": " (no key holds one; a value may). */
function splitLine(line: string): [string, string] | null {
  const at = line.indexOf(": ");
  return at <= 0 ? null : [line.slice(0, at), line.slice(at + 2)];
}

/** Recomputes the MAC with WebCrypto's verify, which compares in constant time. */
export async function hasValidMac(challenge: ParsedChallenge, macKey: string): Promise<boolean> {
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = new Uint8Array(base64urlnopad.decode(challenge.mac));
  } catch {
    return false;
  }
  return crypto.subtle.verify("HMAC", await hmacKey(macKey), mac, new TextEncoder().encode(challenge.signedPart));
}

/** Only the exact output of toISOString round-trips, so a reformatted timestamp cannot slip through. */
function parseIsoExact(text: string): number | null {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== text) return null;
  return ms;
}

/**
 * The imported MAC key, remembered per isolate once imported (settled promises only:
 * src/platform/cache/share-once-fulfilled.ts).
 */
const keyCache = new Map<string, Promise<CryptoKey>>();
function hmacKey(secret: string): Promise<CryptoKey> {
  return (
    keyCache.get(secret) ??
    shareOnceFulfilled(
      crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify",
      ]),
      (key) => keyCache.set(secret, key),
    )
  );
}
