import { type Address, isAddress, isOffCurveAddress } from "@solana/kit";
import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { badRequest, refused } from "../../platform/errors/catalogue";
import { type PaymentRequiredBody, PaymentRequirementsSchema } from "../../x402/schemas";
import { bareScheme } from "../../x402/scheme-names";
import { escrowAddresses, getSlaEscrowFacts } from "./escrow-facts";
import { escrowAmountLimits, escrowAmountViolation } from "./escrow-terms";
import { slaEscrowRail } from "./rail";

type JsonObject = Record<string, unknown>;

/**
 * The enrich transform for `sla-escrow` lines of this network (docs/facilitator-spec.md §2.1, §4.3): `payTo` becomes
 * the Escrow PDA of (asset, bank) and `extra` gains this facilitator's keys, with the seller's own keys kept and the
 * seller named in `merchantWallet` (a given `beneficiary` stays). A seller wallet never becomes the payTo: money for an
 * escrow line goes to the escrow, and FundPayment names the seller. Lines already paying the Escrow PDA are returned as
 * given.
 */
export async function enrichEscrowLines(config: Config, body: PaymentRequiredBody): Promise<PaymentRequiredBody> {
  const indexes = body.accepts.flatMap((raw, index) => (isOwnEscrowLine(config, raw) ? [index] : []));
  if (indexes.length === 0) return body;
  const facilitatorExtra = await slaEscrowRail.supportedExtra(config);
  if (facilitatorExtra === null)
    throw badRequest("accepts: the sla-escrow rail is not served by this facilitator on this cluster; see /supported");
  const { merchantWallet: _unsetWallet, beneficiary: _unsetBeneficiary, ...ownedKeys } = facilitatorExtra;

  const accepts = [...body.accepts];
  for (const index of indexes) {
    const line = validLine(accepts[index], index);
    const { escrow } = await escrowAddresses(config.programs.slaEscrow, line.asset as Address);
    await refuseOutOfLimits(config, line, index);
    const sellerExtra = isPlainObject(line.extra) ? line.extra : {};
    const named = sellerOf(sellerExtra, index);
    if (line.payTo === escrow) {
      if (named === null)
        throw badRequest(
          `accepts[${index}].extra.merchantWallet: an sla-escrow line paying the Escrow PDA must name the seller's ` +
            `wallet`,
        );
      continue;
    }
    if (isOffCurveAddress(line.payTo as Address)) {
      throw badRequest(
        `accepts[${index}].payTo: ${line.payTo} is neither the seller's wallet nor the Escrow ` +
          `PDA ${escrow}; send the seller wallet as payTo`,
      );
    }
    if (named !== null && named !== line.payTo) {
      throw badRequest(
        `accepts[${index}].payTo: ${line.payTo} differs from the seller named in extra ` +
          `(${named}); send one seller wallet`,
      );
    }
    accepts[index] = {
      ...line,
      scheme: "sla-escrow",
      payTo: escrow,
      extra: {
        ...sellerExtra,
        ...ownedKeys,
        merchantWallet: (sellerExtra.merchantWallet as string | undefined) ?? line.payTo,
      },
    };
  }
  return { ...body, accepts };
}

/**
 * A line whose amount the escrow refuses (out of its range, or below its minimum fee) can never be paid: refused here
 * with /verify's reason and the escrow's numbers, rather than at the buyer's /verify. An asset without an escrow on
 * this cluster is left to the builder (501), as before.
 */
async function refuseOutOfLimits(
  config: Config,
  line: { asset: string; amount: string },
  index: number,
): Promise<void> {
  const mint = line.asset as Address;
  const { escrowAccount } = await getSlaEscrowFacts(config, mint);
  if (escrowAccount === null) return;
  const violation = escrowAmountViolation(escrowAccount, mint, BigInt(line.amount));
  if (violation !== null)
    throw refused(
      violation.reason,
      `accepts[${index}].amount: amount ${line.amount} ${violation.rule}`,
      escrowAmountLimits(escrowAccount),
    );
}

function isOwnEscrowLine(config: Config, raw: unknown): boolean {
  return (
    isPlainObject(raw) &&
    typeof raw.scheme === "string" &&
    bareScheme(raw.scheme) === "sla-escrow" &&
    (raw.network === undefined || raw.network === config.network)
  );
}

function validLine(raw: unknown, index: number): JsonObject & { asset: string; payTo: string; amount: string } {
  const result = v.safeParse(PaymentRequirementsSchema, raw, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0]!;
    const path = v.getDotPath(issue);
    throw badRequest(`accepts[${index}]${path ? `.${path}` : ""}: ${issue.message}`);
  }
  return raw as JsonObject & { asset: string; payTo: string; amount: string };
}

/** `extra.beneficiary`, else `extra.merchantWallet`, else null; a present one must be a wallet address. */
function sellerOf(extra: JsonObject, index: number): string | null {
  for (const key of ["beneficiary", "merchantWallet"] as const) {
    const value = extra[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || !isAddress(value))
      throw badRequest(`accepts[${index}].extra.${key}: must be a base58 Solana address`);
    return value;
  }
  return null;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
