import type { Config } from "../platform/config/load-config";
import type { VerifySettleBody } from "./schemas";
import { normalizeScheme } from "./scheme-names";
import { requirementsMatch } from "./requirements-match";
import { assetNotAllowedMessage } from "./asset-allowlist";
import { rejection, type AcceptedRequirements, type PaymentRejection } from "./payment-verdict";

/**
 * The cheap, scheme-independent checks of verify and settle, in order: alias normalisation,
 * requirements = accepted (for upto: but for the amount, a charge at most the accepted ceiling), network, asset allowlist.
 */
export function checkCommonRequirements(config: Config, body: VerifySettleBody): AcceptedRequirements | PaymentRejection {
  const required = body.paymentRequirements;
  const scheme = normalizeScheme(required.scheme);
  if (scheme === null) {
    return rejection("unsupported_scheme", `Scheme "${required.scheme}" is not supported; use "exact", "sla-escrow" or "upto"`);
  }
  const accepted = body.paymentPayload.accepted;
  // upto settles a charge below the accepted ceiling: the requirements of a claim carry the charged amount.
  const comparable = scheme === "upto" ? { ...accepted, amount: required.amount } : accepted;
  if (normalizeScheme(accepted.scheme) !== scheme || !requirementsMatch(required, comparable)) {
    return rejection("invalid_payload_requirements_mismatch", "paymentRequirements must be identical to paymentPayload.accepted");
  }
  if (scheme === "upto" && BigInt(required.amount) > BigInt(accepted.amount)) {
    return rejection("invalid_upto_svm_payload_settlement_exceeds_amount", `The charged amount ${required.amount} exceeds the authorized ceiling ${accepted.amount}`);
  }
  if (required.network !== config.network) {
    return rejection("invalid_network", `Network ${required.network} is not served here; this facilitator settles on ${config.network}`);
  }
  const notAllowed = assetNotAllowedMessage(config, required.asset);
  if (notAllowed) return rejection("asset_not_allowed", notAllowed);
  return { scheme, requirements: { ...required, scheme }, amount: BigInt(required.amount) };
}
