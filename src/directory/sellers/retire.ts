import type { Address } from "@solana/kit";
import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { retireProvider } from "../../store/providers";
import { Base58Address } from "../../x402/schemas";
import { SignedFields } from "../wallet-challenges/challenge-inputs";
import { consumeChallenge, verifySignedChallenge } from "../wallet-challenges/signed-challenge";
import { assertBodyWalletMatches } from "./register";

export const RetireBodySchema = v.object({ wallet: v.optional(Base58Address), ...SignedFields });

export interface RetireResponse {
  wallet: Address;
  retiredRowCount: number;
  note: string;
}

/**
 * `POST /sellers/{wallet}/retire`: withdraws the verified registration (the row is kept, marked retired, so the
 * audit trail stays). The on-chain vault is untouched: payments to it keep working; only the listing goes.
 */
export async function retireSeller(
  config: Config,
  db: D1Database,
  wallet: Address,
  body: v.InferOutput<typeof RetireBodySchema>,
  domain: string,
): Promise<RetireResponse> {
  assertBodyWalletMatches(wallet, body.wallet);
  const challenge = await verifySignedChallenge(config, {
    wallet,
    action: "seller:retire",
    message: body.message,
    signature: body.signature,
    domain,
  });
  await consumeChallenge(db, challenge);
  const retiredRowCount = await retireProvider(db, wallet, Date.now());
  return {
    wallet,
    retiredRowCount,
    note:
      retiredRowCount > 0
        ? "Registration retired: the wallet is no longer a verified provider and is not listed. The vault stays on " +
          "chain and keeps accepting payments; register again to return."
        : "Nothing to retire: the wallet has no active registration.",
  };
}
