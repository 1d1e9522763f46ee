import * as v from "valibot";
import { Address, Instant } from "../responses/fields";

/** Success bodies of the provider directory routes (routes/providers.ts). */

export const ProviderEntrySchema = v.looseObject({
  walletPubkey: Address,
  settlementMode: v.picklist(["native_sol", "spl"]),
  splMint: v.optional(Address),
  splitVaultPda: v.optional(Address),
  payToForm: v.optional(v.literal("wallet")),
  serviceUrl: v.string(),
  displayName: v.optional(v.string()),
  description: v.optional(v.string()),
  tags: v.array(v.string()),
  serviceMetadata: v.optional(v.record(v.string(), v.unknown())),
  listingOptIn: v.boolean(),
  registrationVerifiedAt: Instant,
  updatedAt: Instant,
});

export const ProvidersPageResponseSchema = v.looseObject({
  entries: v.array(ProviderEntrySchema),
  nextCursor: v.nullable(v.string()),
  notice: v.string(),
});

/** pr402's PublicProviderSingle `{entry, notice}`, with the entry's members also at the top level. */
export const ProviderSingleResponseSchema = v.looseObject({
  ...ProviderEntrySchema.entries,
  entry: ProviderEntrySchema,
  notice: v.string(),
});
