import * as v from "valibot";
import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { badRequest, FacilitatorError } from "../../platform/errors/catalogue";
import { getProvider, upsertVerifiedProvider, type ProviderAsset } from "../../store/providers";
import { Base58Address } from "../../x402/schemas";
import { readActivation, readWalletActivation } from "./activation";
import { railNotEnabled, requireUniversalSettle } from "../../platform/config/rail-switches";
import { toProviderEntry, type ProviderEntry } from "../providers/provider-entry";
import { resolveSellerAsset, SellerAssetInput, type SellerAsset } from "./seller-asset";
import { SignedFields } from "../wallet-challenges/challenge-inputs";
import { httpUrlSchema } from "../../platform/validation/http-url";
import { consumeChallenge, verifySignedChallenge } from "../wallet-challenges/signed-challenge";

/** Seller field limits (docs/wire-notes.md "Sellers"). */
export const MAX_SERVICE_URL_LENGTH = 2048;
export const MAX_DISPLAY_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 280;
export const MAX_TAGS = 5;
export const MAX_SERVICE_METADATA_BYTES = 4096;

const HttpUrl = httpUrlSchema(MAX_SERVICE_URL_LENGTH);

const DiscoverySchema = v.object({
  serviceUrl: v.optional(HttpUrl),
  displayName: v.optional(v.pipe(v.string("must be a string"), v.maxLength(MAX_DISPLAY_NAME_LENGTH, `must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`))),
  description: v.optional(v.pipe(v.string("must be a string"), v.maxLength(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`))),
  tags: v.optional(
    v.pipe(
      v.array(v.pipe(v.string("must be a string"), v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -")), "must be an array of tags"),
      v.maxLength(MAX_TAGS, `must have at most ${MAX_TAGS} tags`),
    ),
  ),
  serviceMetadata: v.optional(
    v.pipe(
      // custom, not v.record: record would silently turn an array into an object with index keys.
      v.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), "must be a JSON object"),
      v.check((value) => new TextEncoder().encode(JSON.stringify(value)).length <= MAX_SERVICE_METADATA_BYTES, `must be at most ${MAX_SERVICE_METADATA_BYTES} bytes of JSON`),
    ),
  ),
  listingOptIn: v.optional(v.boolean("must be true or false")),
});

export const RegisterBodySchema = v.object({
  wallet: v.optional(Base58Address),
  ...SignedFields,
  /** Optional, USDC by default, as in pr402 (OnboardSubmitBody; default_onboard_registration_asset in src/bin/handlers/onboard.rs). */
  asset: v.optional(SellerAssetInput, "USDC"),
  discovery: v.optional(DiscoverySchema),
  /**
   * The exact rail's `payTo` form the seller is paid with: "vault" (its UniversalSettle vault) or "wallet" (its own
   * wallet, SVC_EXACT_WALLET_PAYTO). Absent: the vault where that form runs, else the wallet.
   */
  payToForm: v.optional(v.picklist(["vault", "wallet"], 'must be "vault" or "wallet"')),
});
export type RegisterBody = v.InferOutput<typeof RegisterBodySchema>;

export interface RegisterResponse {
  wallet: Address;
  verified: true;
  provider: ProviderEntry;
  note: string;
}

/**
 * The form a registration is for (docs/wire-notes.md "Sellers"): the seller's choice, else the vault where it runs
 * (so a vault registration reads as it always did), else the wallet. A form this deployment does not run is 503.
 */
function registeredPayToForm(config: Config, chosen: "vault" | "wallet" | undefined): "vault" | "wallet" {
  const { exactVault, exactWallet } = config.rails;
  const form = chosen ?? (exactVault.enabled ? "vault" : exactWallet.enabled ? "wallet" : "vault");
  if (form === "wallet" && !exactWallet.enabled) throw railNotEnabled("exact (wallet payTo)", exactWallet.why);
  if (form === "vault") requireUniversalSettle(config);
  return form;
}

/** The vault form checks the vault (and its token account); the wallet form the wallet's own token account. */
async function activationOf(config: Config, wallet: Address, asset: SellerAsset, form: "vault" | "wallet"): Promise<{ vaultPda: Address | null; missing: string | null }> {
  if (form === "vault") return readActivation(config, wallet, asset);
  return { vaultPda: null, missing: await readWalletActivation(config, wallet, asset) };
}

/** The path is canonical; a body `wallet` is only a cross-check (docs/facilitator-spec.md §4.3). */
export function assertBodyWalletMatches(pathWallet: Address, bodyWallet: Address | undefined): void {
  if (bodyWallet !== undefined && bodyWallet !== pathWallet) {
    throw badRequest(`wallet: the body names ${bodyWallet} but the path names ${pathWallet}; they must be equal`);
  }
}

function providerAssetOf(asset: SellerAsset): ProviderAsset {
  return asset.isNativeSol ? { settlementMode: "native_sol", splMint: null } : { settlementMode: "spl", splMint: asset.mint };
}

/**
 * `POST /sellers/{wallet}/register` (docs/facilitator-spec.md §3.1, §3.4): turns an activated seller into a verified provider.
 * Order: validation (400) → signed challenge (401) → registry rule (400) and activation on chain (409) →
 * consume the challenge (401 on replay) → write. The challenge is used up only when the write will happen,
 * so a seller who registered too early can retry with the same challenge once activation lands.
 */
export async function registerSeller(config: Config, db: D1Database, wallet: Address, body: RegisterBody, domain: string): Promise<RegisterResponse> {
  assertBodyWalletMatches(wallet, body.wallet);
  const asset = resolveSellerAsset(config, body.asset);
  const form = registeredPayToForm(config, body.payToForm);
  const challenge = await verifySignedChallenge(config, { wallet, action: "seller:register", message: body.message, signature: body.signature, domain });

  const [existing, activation] = await Promise.all([getProvider(db, wallet), activationOf(config, wallet, asset, form)]);
  const wanted = providerAssetOf(asset);
  if (existing && existing.retiredAtMs === null && (existing.settlementMode !== wanted.settlementMode || existing.splMint !== wanted.splMint)) {
    const registered = existing.settlementMode === "native_sol" ? "SOL" : existing.splMint;
    throw badRequest(
      `asset: wallet ${wallet} is already registered for ${registered}; one payment asset per merchant wallet ` +
        "(use a separate seller wallet for each asset, or retire this registration first)",
    );
  }
  if (activation.missing !== null) {
    throw new FacilitatorError(
      "CONFLICT",
      form === "vault"
        ? `Activation has not landed on chain: ${activation.missing}. Send the transaction from POST /sellers/provision-tx, wait for confirmation, then register again`
        : `The wallet payTo form needs the token account payments land in: ${activation.missing}. Create it (the associated token account of ${wallet} for the mint; this facilitator never creates it), then register again`,
    );
  }
  const discovery = body.discovery ?? {};
  if (discovery.listingOptIn === true && !discovery.serviceUrl && !existing?.serviceUrl) {
    throw badRequest("discovery.serviceUrl: required when listingOptIn is true (the directory lists merchant origins)");
  }

  await consumeChallenge(db, challenge);
  const row = await upsertVerifiedProvider(db, { walletPubkey: wallet, asset: wanted, splitVaultPda: activation.vaultPda, discovery, nowMs: Date.now() });
  return {
    wallet,
    verified: true,
    provider: toProviderEntry(row),
    note: row.listingOptIn
      ? "Verified and listed in GET /providers."
      : "Verified. Not listed in GET /providers: send discovery.listingOptIn = true (with discovery.serviceUrl) to be listed.",
  };
}
