import type { Address } from "@solana/kit";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import { parseMint } from "../../chain/mint";
import type { Config } from "../../platform/config/load-config";
import { type ErrorReason, refused } from "../../platform/errors/catalogue";
import { type PaymentRequiredBody, PaymentRequirementsSchema } from "../../x402/schemas";
import { bareScheme } from "../../x402/scheme-names";
import { uptoBelowMinimumMessage, uptoMinimumCeilingRaw } from "./mint-screen";

export const UPTO_ENRICH_REASONS = [
  "invalid_upto_svm_payload_amount_below_minimum",
] as const satisfies readonly ErrorReason[];

/**
 * The enrich step of `upto` lines of this network: nothing to rewrite (payTo is the seller's own wallet and the
 * official server fills `extra`), but a ceiling below this facilitator's minimum can never be paid, so it is refused
 * here with the reason and number the deposit builder and /verify give. A line that does not parse, or whose mint
 * does not exist, is left to them (they name the field).
 */
export async function refuseUptoLinesBelowMinimum(
  config: Config,
  body: PaymentRequiredBody,
): Promise<PaymentRequiredBody> {
  const lines = body.accepts.flatMap((raw, index) => {
    const parsed = v.safeParse(PaymentRequirementsSchema, raw);
    if (!parsed.success || bareScheme(parsed.output.scheme) !== "upto" || parsed.output.network !== config.network)
      return [];
    return [{ index, asset: parsed.output.asset as Address, amount: BigInt(parsed.output.amount) }];
  });
  if (lines.length === 0) return body;
  const mints = await fetchAccounts(config, [...new Set(lines.map((line) => line.asset))]);
  for (const { index, asset, amount } of lines) {
    const account = mints.get(asset) ?? null;
    const mint = account === null ? null : parseMint(account);
    if (mint === null) continue;
    const minimum = uptoMinimumCeilingRaw(config, mint);
    if (amount < minimum) {
      throw refused(
        "invalid_upto_svm_payload_amount_below_minimum",
        `accepts[${index}].amount: ${uptoBelowMinimumMessage(amount, minimum, asset)}`,
        { minimumAmount: minimum.toString() },
      );
    }
  }
  return body;
}
