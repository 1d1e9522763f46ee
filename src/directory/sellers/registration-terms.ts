import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { railNotEnabled } from "../../platform/config/rail-switches";
import { httpUrlSchema } from "../../platform/validation/http-url";
import type { RailModule } from "../../rails/rail";
import type { RailSellerRegistration } from "../../rails/seller-view";
import type { ChallengeTerm } from "../wallet-challenges/challenge-message";
import { resolveSellerAsset, type SellerAsset, SellerAssetInput } from "./seller-asset";

/**
 * What a seller registration decides: where the seller is paid (asset, `payTo` form) and what is published about it
 * (`discovery`). A registration challenge can be issued for these terms (POST /sellers/{wallet}/register/challenge), so
 * the wallet signs them and nobody who relays the signed challenge can register other ones (docs/wire-notes.md
 * "Sellers").
 */

/** Seller field limits (docs/wire-notes.md "Sellers"). */
export const MAX_SERVICE_URL_LENGTH = 2048;
export const MAX_DISPLAY_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 280;
export const MAX_TAGS = 5;
export const MAX_SERVICE_METADATA_BYTES = 4096;

const HttpUrl = httpUrlSchema(MAX_SERVICE_URL_LENGTH);

const DiscoverySchema = v.object({
  serviceUrl: v.optional(HttpUrl),
  displayName: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.maxLength(MAX_DISPLAY_NAME_LENGTH, `must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`),
    ),
  ),
  description: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.maxLength(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`),
    ),
  ),
  tags: v.optional(
    v.pipe(
      v.array(
        v.pipe(v.string("must be a string"), v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -")),
        "must be an array of tags",
      ),
      v.maxLength(MAX_TAGS, `must have at most ${MAX_TAGS} tags`),
    ),
  ),
  serviceMetadata: v.optional(
    v.pipe(
      // custom, not v.record: record would silently turn an array into an object with index keys.
      v.custom<Record<string, unknown>>(
        (value) => typeof value === "object" && value !== null && !Array.isArray(value),
        "must be a JSON object",
      ),
      v.check(
        (value) => new TextEncoder().encode(JSON.stringify(value)).length <= MAX_SERVICE_METADATA_BYTES,
        `must be at most ${MAX_SERVICE_METADATA_BYTES} bytes of JSON`,
      ),
    ),
  ),
  listingOptIn: v.optional(v.boolean("must be true or false")),
});
export type Discovery = v.InferOutput<typeof DiscoverySchema>;

export const PAY_TO_FORMS = ["vault", "wallet"] as const;
export type PayToForm = (typeof PAY_TO_FORMS)[number];

/** The body fields that are the registration's terms, shared by the register body and the challenge request. */
export const RegistrationTermsFields = {
  /**
   * Optional, USDC by default, as in pr402 (OnboardSubmitBody; default_onboard_registration_asset in
   * src/bin/handlers/onboard.rs).
   */
  asset: v.optional(SellerAssetInput, "USDC"),
  discovery: v.optional(DiscoverySchema),
  /**
   * The exact rail's `payTo` form the seller is paid with: "vault" (its UniversalSettle vault) or "wallet" (its own
   * wallet, SVC_EXACT_WALLET_PAYTO). Absent: the vault where that form runs, else the wallet.
   */
  payToForm: v.optional(v.picklist(PAY_TO_FORMS, 'must be "vault" or "wallet"')),
};

export interface RegistrationTerms {
  asset: SellerAsset;
  form: PayToForm;
  /** As sent; a field left out keeps its registered value. */
  discovery: Discovery;
}

/** The registration part of the first rail that registers sellers; 503 `rail_not_enabled` when none is served. */
export function sellerRegistrationOf(rails: readonly RailModule[]): RailSellerRegistration {
  const registration = rails.find((rail) => rail.seller?.registration)?.seller?.registration;
  if (registration === undefined) throw railNotEnabled("seller registration", "no rail served here registers sellers");
  return registration;
}

/** The form a registration without `payToForm` is for, as the registering rail chooses it. */
export function defaultPayToForm(config: Config, registration: RailSellerRegistration): PayToForm {
  return registration.defaultForm(config) as PayToForm;
}

/**
 * The terms a body asks for, resolved as the register writes them: the asset's mint (400 when unknown or not
 * allowed), the form (503 when this deployment does not run it).
 */
export function resolveRegistrationTerms(
  config: Config,
  registration: RailSellerRegistration,
  fields: { asset: string; payToForm?: PayToForm; discovery?: Discovery },
): RegistrationTerms {
  const asset = resolveSellerAsset(config, fields.asset);
  const form = fields.payToForm ?? defaultPayToForm(config, registration);
  registration.requireForm(config, form);
  return { asset, form, discovery: fields.discovery ?? {} };
}

/**
 * The terms as challenge lines, in a fixed order: the money terms and the listing in words a wallet shows, and a
 * digest of the whole discovery object (display name, description, tags, metadata included). Equal terms give
 * equal lines, so the register compares lines.
 */
export async function registrationTermLines(terms: RegistrationTerms): Promise<ChallengeTerm[]> {
  const { serviceUrl, listingOptIn } = terms.discovery;
  return [
    [
      "asset",
      terms.asset.isNativeSol
        ? "SOL (native)"
        : terms.asset.label === terms.asset.mint
          ? terms.asset.mint
          : `${terms.asset.label} (mint ${terms.asset.mint})`,
    ],
    ["payToForm", terms.form],
    // The parsed URL's href: one line whatever the text holds, and a lookalike host shows as punycode.
    ["serviceUrl", serviceUrl === undefined ? UNCHANGED : new URL(serviceUrl).href],
    ["listingOptIn", listingOptIn === undefined ? UNCHANGED : String(listingOptIn)],
    ["discovery", `sha256:${await sha256Hex(canonicalJson(terms.discovery))}`],
  ];
}

const UNCHANGED = "(unchanged)";

/**
 * JSON with object keys sorted at every depth, built as text (no object is rebuilt, so a "__proto__" key stays data).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
