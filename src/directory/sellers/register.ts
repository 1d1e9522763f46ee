import type { Address } from "@solana/kit";
import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { badRequest, FacilitatorError } from "../../platform/errors/catalogue";
import type { RailModule } from "../../rails/rail";
import { getProvider, type ProviderAsset, upsertVerifiedProvider } from "../../store/providers";
import { Base58Address } from "../../x402/schemas";
import { type ProviderEntry, toProviderEntry } from "../providers/provider-entry";
import { SignedFields } from "../wallet-challenges/challenge-inputs";
import { consumeChallenge, verifySignedChallenge } from "../wallet-challenges/signed-challenge";
import { assertChallengeCoversTerms } from "./register-challenge";
import { RegistrationTermsFields, resolveRegistrationTerms, sellerRegistrationOf } from "./registration-terms";
import type { SellerAsset } from "./seller-asset";

export const RegisterBodySchema = v.object({
  wallet: v.optional(Base58Address),
  ...SignedFields,
  ...RegistrationTermsFields,
});
export type RegisterBody = v.InferOutput<typeof RegisterBodySchema>;

export interface RegisterResponse {
  wallet: Address;
  verified: true;
  provider: ProviderEntry;
  note: string;
}

/** The path is canonical; a body `wallet` is only a cross-check (docs/facilitator-spec.md §4.3). */
export function assertBodyWalletMatches(pathWallet: Address, bodyWallet: Address | undefined): void {
  if (bodyWallet !== undefined && bodyWallet !== pathWallet) {
    throw badRequest(`wallet: the body names ${bodyWallet} but the path names ${pathWallet}; they must be equal`);
  }
}

function providerAssetOf(asset: SellerAsset): ProviderAsset {
  return asset.isNativeSol
    ? { settlementMode: "native_sol", splMint: null }
    : { settlementMode: "spl", splMint: asset.mint };
}

/**
 * `POST /sellers/{wallet}/register` (docs/facilitator-spec.md §3.1, §3.4): turns an activated seller into a verified
 * provider. Order: validation (400) → signed challenge and its terms (401) → registry rule (400) and activation on
 * chain (409) → consume the challenge (401 on replay) → write. The challenge is used up only when the write will
 * happen, so a seller who registered too early can retry with the same challenge once activation lands.
 */
export async function registerSeller(
  rails: readonly RailModule[],
  config: Config,
  db: D1Database,
  wallet: Address,
  body: RegisterBody,
  domain: string,
): Promise<RegisterResponse> {
  assertBodyWalletMatches(wallet, body.wallet);
  const registration = sellerRegistrationOf(rails);
  const terms = resolveRegistrationTerms(config, registration, body);
  const { asset, form } = terms;
  const challenge = await verifySignedChallenge(config, {
    wallet,
    action: "seller:register",
    message: body.message,
    signature: body.signature,
    domain,
  });
  await assertChallengeCoversTerms(config, registration, challenge, terms);

  const [existing, activation] = await Promise.all([
    getProvider(db, wallet),
    registration.activation(config, wallet, asset, form),
  ]);
  const wanted = providerAssetOf(asset);
  if (
    existing &&
    existing.retiredAtMs === null &&
    (existing.settlementMode !== wanted.settlementMode || existing.splMint !== wanted.splMint)
  ) {
    const registered = existing.settlementMode === "native_sol" ? "SOL" : existing.splMint;
    throw badRequest(
      `asset: wallet ${wallet} is already registered for ${registered}; one payment asset per merchant wallet ` +
        "(use a separate seller wallet for each asset, or retire this registration first)",
    );
  }
  if (activation.missing !== null) {
    throw new FacilitatorError("CONFLICT", registration.notActivatedMessage(form, wallet, activation.missing));
  }
  const discovery = terms.discovery;
  if (discovery.listingOptIn === true && !discovery.serviceUrl && !existing?.serviceUrl) {
    throw badRequest("discovery.serviceUrl: required when listingOptIn is true (the directory lists merchant origins)");
  }

  await consumeChallenge(db, challenge);
  const row = await upsertVerifiedProvider(db, {
    walletPubkey: wallet,
    asset: wanted,
    splitVaultPda: activation.vaultPda,
    discovery,
    nowMs: Date.now(),
  });
  return {
    wallet,
    verified: true,
    provider: toProviderEntry(row),
    note: row.listingOptIn
      ? "Verified and listed in GET /providers."
      : "Verified. Not listed in GET /providers: send discovery.listingOptIn = true (with discovery.serviceUrl) to " +
        "be listed.",
  };
}
