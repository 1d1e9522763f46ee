import type { Config } from "../platform/config/load-config";
import { assetNotAllowedMessage } from "./asset-allowlist";
import { type AcceptedRequirements, type PaymentRejection, type RejectionReason, rejection } from "./payment-verdict";
import { describeRequirementsMismatch, requirementsMatch } from "./requirements-match";
import type { VerifySettleBody } from "./schemas";
import { normalizeSchemeAmong, quotedSchemeList } from "./scheme-names";

/** What the common checks need to know of a rail: only whether its requirements charge below the accepted amount. */
export interface SchemeRules {
  /**
   * The requirements' amount is a charge of at most `paymentPayload.accepted.amount` (a ceiling the buyer authorised),
   * not the same amount; `exceedsReason` refuses a charge above the ceiling.
   */
  chargeWithinAccepted?: { exceedsReason: RejectionReason };
}

/**
 * The cheap, scheme-independent checks of verify and settle, in order: alias normalisation, requirements = accepted
 * (for a rail that charges within the accepted ceiling: but for the amount, a charge at most that ceiling), network,
 * asset allowlist. `rails`: the served schemes in the order an error lists them.
 */
export function checkCommonRequirementsAmong(
  config: Config,
  body: VerifySettleBody,
  rails: ReadonlyMap<string, SchemeRules>,
): AcceptedRequirements | PaymentRejection {
  const required = body.paymentRequirements;
  const scheme = normalizeSchemeAmong(required.scheme, rails);
  if (scheme === null) {
    return rejection(
      "unsupported_scheme",
      `Scheme "${required.scheme}" is not supported; use ${quotedSchemeList([...rails.keys()])}`,
    );
  }
  const charge = rails.get(scheme)?.chargeWithinAccepted;
  const accepted = body.paymentPayload.accepted;
  // A charge below the accepted ceiling: the requirements of a claim carry the charged amount.
  const comparable = charge ? { ...accepted, amount: required.amount } : accepted;
  if (normalizeSchemeAmong(accepted.scheme, rails) !== scheme || !requirementsMatch(required, comparable)) {
    return rejection(
      "invalid_payload_requirements_mismatch",
      `paymentRequirements must be the line the buyer paid, paymentPayload.accepted, ` +
        `unchanged: ${describeRequirementsMismatch(required, comparable)} ` +
        "(only the per-request extra.recentBlockhash, lastValidBlockHeight and recentSlot may differ, and accepted " +
        "may carry more extra keys)",
    );
  }
  if (charge && BigInt(required.amount) > BigInt(accepted.amount)) {
    return rejection(
      charge.exceedsReason,
      `The charged amount ${required.amount} exceeds the authorized ceiling ${accepted.amount}`,
    );
  }
  if (required.network !== config.network) {
    return rejection(
      "invalid_network",
      `Network ${required.network} is not served here; this facilitator settles on ${config.network}`,
    );
  }
  const notAllowed = assetNotAllowedMessage(config, required.asset);
  if (notAllowed) return rejection("asset_not_allowed", notAllowed);
  return { scheme, requirements: { ...required, scheme }, amount: BigInt(required.amount) };
}
