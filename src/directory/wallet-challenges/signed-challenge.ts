import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { type ErrorReason, FacilitatorError } from "../../platform/errors/catalogue";
import { consumeChallengeNonce } from "../../store/challenges";
import { actionCovers, type ChallengeAction } from "./challenge-actions";
import {
  type ChallengeTerm,
  formatChallengeMessage,
  hasValidMac,
  type ParsedChallenge,
  parseChallengeMessage,
  randomChallengeNonce,
} from "./challenge-message";
import { isWalletSignature } from "./wallet-signature";

/** Challenge lifetime bounds (docs/wire-notes.md "Sellers": 1..3600 s). */
/** What issuing a challenge can answer: no MAC key on this deployment. */
export const CHALLENGE_ISSUE_REASONS = ["service_unavailable"] as const satisfies readonly ErrorReason[];
/** What a route that reads a signed challenge can answer (route-def.ts adds them to every `wallet-signature` route). */
export const SIGNED_CHALLENGE_REASONS = [
  "unauthorized",
  ...CHALLENGE_ISSUE_REASONS,
] as const satisfies readonly ErrorReason[];

export const MIN_CHALLENGE_TTL_SECONDS = 1;
export const MAX_CHALLENGE_TTL_SECONDS = 3600;

export interface IssuedChallenge {
  wallet: Address;
  action: ChallengeAction;
  message: string;
  expiresUnix: number;
  ttlSeconds: number;
}

/** Without a MAC key no challenge can be proven authentic, so the routes refuse rather than accept unsigned ones. */
export function requireChallengeMacKey(config: Config): string {
  if (config.challengeMacKey === null) {
    throw new FacilitatorError(
      "SERVICE_UNAVAILABLE",
      "Wallet-signed challenges are disabled: this deployment has no CHALLENGE_MAC_KEY secret",
    );
  }
  // A short HMAC key can be guessed offline from one issued challenge; then anyone could forge challenges.
  if (new TextEncoder().encode(config.challengeMacKey).length < MIN_CHALLENGE_MAC_KEY_BYTES) {
    throw new FacilitatorError(
      "SERVICE_UNAVAILABLE",
      `Wallet-signed challenges are disabled: CHALLENGE_MAC_KEY must be at least ${MIN_CHALLENGE_MAC_KEY_BYTES} bytes`,
    );
  }
  return config.challengeMacKey;
}

/** Shortest accepted HMAC key for challenges (the SHA-256 output size). */
export const MIN_CHALLENGE_MAC_KEY_BYTES = 32;

/** A fresh one-time challenge; a requested TTL can shorten the configured one, never extend it. */
export async function issueChallenge(
  config: Config,
  request: {
    wallet: Address;
    action: ChallengeAction;
    domain: string;
    terms?: readonly ChallengeTerm[];
    ttlSeconds?: number;
    nowMs?: number;
  },
): Promise<IssuedChallenge> {
  const macKey = requireChallengeMacKey(config);
  const configured = clampTtl(config.limits.challengeTtlSeconds);
  const ttlSeconds = request.ttlSeconds === undefined ? configured : Math.min(clampTtl(request.ttlSeconds), configured);
  const issuedAtMs = request.nowMs ?? Date.now();
  const expiresAtMs = issuedAtMs + ttlSeconds * 1000;
  const message = await formatChallengeMessage(
    {
      domain: request.domain,
      wallet: request.wallet,
      action: request.action,
      terms: request.terms,
      issuedAtMs,
      expiresAtMs,
      nonce: randomChallengeNonce(),
    },
    macKey,
  );
  return {
    wallet: request.wallet,
    action: request.action,
    message,
    expiresUnix: Math.floor(expiresAtMs / 1000),
    ttlSeconds,
  };
}

function clampTtl(seconds: number): number {
  return Math.min(MAX_CHALLENGE_TTL_SECONDS, Math.max(MIN_CHALLENGE_TTL_SECONDS, Math.floor(seconds)));
}

function unauthorized(message: string): FacilitatorError {
  return new FacilitatorError("UNAUTHORIZED", message);
}

/**
 * Proves the request comes from `wallet` for `action` WITHOUT using the challenge up: cheap checks first
 * (shape, server MAC, wallet, action, expiry), the ed25519 verification last. Callers run their own checks
 * next and then `consumeChallenge`, so neither a bad signature nor a 409 burns a valid challenge.
 */
export async function verifySignedChallenge(
  config: Config,
  request: {
    wallet: Address;
    action: ChallengeAction;
    message: string;
    signature: string;
    domain: string;
    nowMs?: number;
  },
): Promise<ParsedChallenge> {
  const macKey = requireChallengeMacKey(config);
  const challenge = parseChallengeMessage(request.message);
  if (challenge === null)
    throw unauthorized(
      "message: not a challenge issued by this facilitator (fetch one from GET /sellers/{wallet}/challenge)",
    );
  if (!(await hasValidMac(challenge, macKey)))
    throw unauthorized("message: the challenge was altered or not issued by this facilitator");
  // Another hostname or deployment sharing the key must not accept this deployment's challenges, nor vice versa.
  if (challenge.domain !== request.domain)
    throw unauthorized(`message: the challenge was issued for ${challenge.domain}, not for ${request.domain}`);
  if (challenge.wallet !== request.wallet)
    throw unauthorized(`message: the challenge was issued for wallet ${challenge.wallet}, not ${request.wallet}`);
  if (!actionCovers(challenge.action, request.action)) {
    throw unauthorized(
      `message: the challenge authorizes "${challenge.action}", this request needs "${request.action}"`,
    );
  }
  if ((request.nowMs ?? Date.now()) >= challenge.expiresAtMs)
    throw unauthorized("message: the challenge has expired; fetch a new one");
  if (!(await isWalletSignature(request.wallet, request.message, request.signature))) {
    throw unauthorized(
      `signature: not a valid ed25519 signature of the message by ${request.wallet} (base58 or base64, 64 bytes)`,
    );
  }
  return challenge;
}

/** Uses the challenge up, atomically across isolates (D1 primary key); a second use is a replay: 401. */
export async function consumeChallenge(db: D1Database, challenge: ParsedChallenge, nowMs = Date.now()): Promise<void> {
  const fresh = await consumeChallengeNonce(db, {
    nonce: challenge.nonce,
    wallet: challenge.wallet,
    action: challenge.action,
    expiresAtMs: challenge.expiresAtMs,
    nowMs,
  });
  if (!fresh) throw unauthorized("message: this challenge was already used; fetch a new one");
}
