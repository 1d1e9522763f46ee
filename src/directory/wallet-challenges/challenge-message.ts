import { base64urlnopad } from "@scure/base";
import type { ChallengeAction } from "./challenge-actions";
import { isChallengeAction } from "./challenge-actions";
import { shareOnceFulfilled } from "../../platform/cache/share-once-fulfilled";

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
 */
export const CHALLENGE_VERSION = "v1";
const FIELD_ORDER = ["x402-facilitator-challenge", "domain", "wallet", "action", "issued", "expires", "nonce", "mac"] as const;
const NONCE_PATTERN = /^[0-9a-f]{32}$/;

export interface ChallengeFields {
  domain: string;
  wallet: string;
  action: ChallengeAction;
  issuedAtMs: number;
  expiresAtMs: number;
  nonce: string;
}

export interface ParsedChallenge extends ChallengeFields {
  /** The lines the MAC covers, exactly as received. */
  signedPart: string;
  mac: string;
}

export function randomChallengeNonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unmacedLines(fields: ChallengeFields): string {
  return [
    `x402-facilitator-challenge: ${CHALLENGE_VERSION}`,
    `domain: ${fields.domain}`,
    `wallet: ${fields.wallet}`,
    `action: ${fields.action}`,
    `issued: ${new Date(fields.issuedAtMs).toISOString()}`,
    `expires: ${new Date(fields.expiresAtMs).toISOString()}`,
    `nonce: ${fields.nonce}`,
  ].join("\n");
}

export async function formatChallengeMessage(fields: ChallengeFields, macKey: string): Promise<string> {
  const signedPart = unmacedLines(fields);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(macKey), new TextEncoder().encode(signedPart)));
  return `${signedPart}\nmac: ${base64urlnopad.encode(mac)}`;
}

/** Strict parse: exactly these eight `key: value` lines in this order, nothing else; null on any deviation. */
export function parseChallengeMessage(message: string): ParsedChallenge | null {
  const lines = message.split("\n");
  if (lines.length !== FIELD_ORDER.length) return null;
  const values: string[] = [];
  for (const [i, key] of FIELD_ORDER.entries()) {
    const prefix = `${key}: `;
    const line = lines[i]!;
    if (!line.startsWith(prefix)) return null;
    values.push(line.slice(prefix.length));
  }
  const [version, domain, wallet, action, issued, expires, nonce, mac] = values as [string, string, string, string, string, string, string, string];
  if (version !== CHALLENGE_VERSION || !isChallengeAction(action) || !NONCE_PATTERN.test(nonce)) return null;
  const issuedAtMs = parseIsoExact(issued);
  const expiresAtMs = parseIsoExact(expires);
  if (issuedAtMs === null || expiresAtMs === null) return null;
  return { domain, wallet, action, issuedAtMs, expiresAtMs, nonce, mac, signedPart: lines.slice(0, -1).join("\n") };
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

/** The imported MAC key, remembered per isolate once imported (settled promises only: src/platform/cache/share-once-fulfilled.ts). */
const keyCache = new Map<string, Promise<CryptoKey>>();
function hmacKey(secret: string): Promise<CryptoKey> {
  return (
    keyCache.get(secret) ??
    shareOnceFulfilled(
      crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
      (key) => keyCache.set(secret, key),
    )
  );
}
