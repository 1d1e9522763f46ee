import type { Address } from "@solana/kit";
import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { type ErrorReason, FacilitatorError } from "../../platform/errors/catalogue";
import type { RailModule } from "../../rails/rail";
import type { RailSellerRegistration } from "../../rails/seller-view";
import type { ChallengeTerm, ParsedChallenge } from "../wallet-challenges/challenge-message";
import {
  type IssuedChallenge,
  issueChallenge,
  MAX_CHALLENGE_TTL_SECONDS,
  MIN_CHALLENGE_TTL_SECONDS,
} from "../wallet-challenges/signed-challenge";
import {
  defaultPayToForm,
  type RegistrationTerms,
  RegistrationTermsFields,
  registrationTermLines,
  resolveRegistrationTerms,
  sellerRegistrationOf,
} from "./registration-terms";

/**
 * A registration challenge issued for the registration's terms (docs/wire-notes.md "Sellers"): the message names the
 * asset, the `payTo` form and the listing, and carries a digest of the discovery fields, so the wallet's signature
 * covers them. The register then takes only a body with the same terms. A challenge from GET
 * /sellers/{wallet}/challenge binds no terms (pr402's clients fetch that one): it still registers pr402's body (asset,
 * discovery), but not a `payToForm` other than the default, which is this facilitator's own field.
 */

/** What the register answers when the body and the challenge's terms disagree (route-def lists them on the route). */
export const REGISTER_TERMS_REASONS = [
  "challenge_terms_mismatch",
  "challenge_terms_required",
] as const satisfies readonly ErrorReason[];

export const RegisterChallengeBodySchema = v.object({
  ...RegistrationTermsFields,
  ttlSeconds: v.optional(
    v.pipe(
      v.number("must be an integer number of seconds"),
      v.integer("must be an integer number of seconds"),
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
export type RegisterChallengeBody = v.InferOutput<typeof RegisterChallengeBodySchema>;

export interface IssuedRegisterChallenge extends IssuedChallenge {
  /** The terms the message binds, as its lines say them. */
  terms: Record<string, string>;
}

/** `POST /sellers/{wallet}/register/challenge`: a one-time `seller:register` challenge for exactly these terms. */
export async function issueRegisterChallenge(
  rails: readonly RailModule[],
  config: Config,
  wallet: Address,
  body: RegisterChallengeBody,
  domain: string,
): Promise<IssuedRegisterChallenge> {
  const terms = await registrationTermLines(resolveRegistrationTerms(config, sellerRegistrationOf(rails), body));
  const issued = await issueChallenge(config, {
    wallet,
    action: "seller:register",
    domain,
    terms,
    ttlSeconds: body.ttlSeconds,
  });
  return { ...issued, terms: Object.fromEntries(terms) };
}

function refusedTerms(reason: (typeof REGISTER_TERMS_REASONS)[number], message: string): FacilitatorError {
  return new FacilitatorError("UNAUTHORIZED", message, { reason });
}

/**
 * The register's check that the wallet signed these terms. A challenge with terms must name exactly the body's; one
 * without (pr402's) may register only the default `payTo` form.
 */
export async function assertChallengeCoversTerms(
  config: Config,
  registration: RailSellerRegistration,
  challenge: ParsedChallenge,
  terms: RegistrationTerms,
): Promise<void> {
  if (challenge.terms.length === 0) {
    const form = defaultPayToForm(config, registration);
    if (terms.form !== form) {
      throw refusedTerms(
        "challenge_terms_required",
        `payToForm: registering ` +
          `the ${terms.form} form here (the default ` +
          `is ${form}) needs a challenge issued for the registration's terms: ` +
          "POST /sellers/{wallet}/register/challenge with the same asset, payToForm and discovery, sign its message, " +
          "then register",
      );
    }
    return;
  }
  const wanted = await registrationTermLines(terms);
  const asText = (lines: readonly ChallengeTerm[]) => lines.map(([key, value]) => `${key}: ${value}`).join("\n");
  if (asText(challenge.terms) === asText(wanted)) return;
  const signed = new Map(challenge.terms);
  const [key, value] = wanted.find(([k, v]) => signed.get(k) !== v) ?? ["message", "a seller registration"];
  const what =
    key === "discovery"
      ? "the discovery fields differ from those the challenge was issued for"
      : `the challenge was signed for ${signed.get(key) ?? "other terms"}, the body asks for ${value}`;
  throw refusedTerms(
    "challenge_terms_mismatch",
    `${key}: ${what}; send the body the challenge was issued for, or fetch a challenge for this one`,
  );
}
