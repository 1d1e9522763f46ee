import * as v from "valibot";
import { LISTED_SCHEMES } from "../../directory/resources/listed-schemes";
import { Address, DecimalAmount, Instant, Integer } from "../responses/fields";

/** Success bodies of the resource directory routes (routes/resources.ts). */

export const ResourceEntrySchema = v.looseObject({
  id: Integer,
  walletPubkey: Address,
  resourceUrl: v.string(),
  httpMethod: v.string(),
  title: v.string(),
  description: v.optional(v.string()),
  useCase: v.optional(v.string()),
  category: v.optional(v.string()),
  tags: v.array(v.string()),
  scheme: v.picklist(LISTED_SCHEMES),
  network: v.optional(v.string()),
  intentContractUrl: v.optional(v.string()),
  merchantOrigin: v.optional(v.string()),
  sellerResourceId: v.optional(v.string()),
  listingOptIn: v.boolean(),
  lastProbeOk: v.boolean(),
  lastProbeAt: v.optional(Instant),
  /** The first line of the 402 its last passing probe saw: scheme, asset (mint) and amount in raw units. */
  price: v.optional(v.looseObject({ scheme: v.string(), asset: v.string(), amount: DecimalAmount })),
  registrationVerifiedAt: Instant,
  updatedAt: Instant,
});

export const ResourceSearchResponseSchema = v.looseObject({
  entries: v.array(ResourceEntrySchema),
  nextCursor: v.nullable(v.string()),
  notice: v.string(),
});

/**
 * pr402's PublicResourceSingle `{entry, notice}`; the entry's members are repeated at the top level for our earlier
 * clients.
 */
export const ResourceSingleResponseSchema = v.looseObject({
  ...ResourceEntrySchema.entries,
  entry: ResourceEntrySchema,
  notice: v.string(),
});
