import * as v from "valibot";
import { CHALLENGE_ACTIONS, DEFAULT_CHALLENGE_ACTION } from "./challenge-actions";
import { MAX_CHALLENGE_TTL_SECONDS, MIN_CHALLENGE_TTL_SECONDS } from "./signed-challenge";

/** Request shapes of the challenge routes and of every signed request, validated at the edge (400 naming the field). */

const DecimalInteger = v.pipe(
  v.string(),
  v.regex(/^\d{1,5}$/, "must be an integer number of seconds"),
  v.transform(Number),
);

export const ChallengeQuerySchema = v.object({
  action: v.optional(
    v.picklist(CHALLENGE_ACTIONS, `must be one of ${CHALLENGE_ACTIONS.join(", ")}`),
    DEFAULT_CHALLENGE_ACTION,
  ),
  ttlSeconds: v.optional(
    v.pipe(
      DecimalInteger,
      v.minValue(
        MIN_CHALLENGE_TTL_SECONDS,
        `must be between ${MIN_CHALLENGE_TTL_SECONDS} and ${MAX_CHALLENGE_TTL_SECONDS}`,
      ),
      v.maxValue(
        MAX_CHALLENGE_TTL_SECONDS,
        `must be between ${MIN_CHALLENGE_TTL_SECONDS} and ${MAX_CHALLENGE_TTL_SECONDS}`,
      ),
    ),
  ),
});

/**
 * A registration challenge names the service URL as its parsed href: up to 2048 characters of text, each of which
 * percent-encodes to at most 9 (a 3-byte UTF-8 character), so about 18.5k; the other lines are well under 1k.
 */
export const MAX_CHALLENGE_MESSAGE_LENGTH = 24_576;

/** The fields every signed request carries. */
export const SignedFields = {
  message: v.pipe(
    v.string("must be the challenge text"),
    v.maxLength(MAX_CHALLENGE_MESSAGE_LENGTH, "is too long to be a challenge"),
  ),
  signature: v.pipe(
    v.string("must be a base58 (or base64) ed25519 signature"),
    v.maxLength(200, "is too long to be a signature"),
  ),
};
