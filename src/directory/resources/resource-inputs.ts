import * as v from "valibot";
import { httpUrlSchema } from "../../platform/validation/http-url";
import { Base58Address } from "../../x402/schemas";
import { MAX_SERVICE_URL_LENGTH, MAX_TAGS } from "../sellers/registration-terms";
import { DEFAULT_RESOURCE_CHALLENGE_ACTION } from "../wallet-challenges/challenge-actions";
import { SignedFields } from "../wallet-challenges/challenge-inputs";
import { LISTED_SCHEMES } from "./listed-schemes";

/** Resource field limits (docs/wire-notes.md "Directory"). */
export const RESOURCE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const HttpUrl = httpUrlSchema(MAX_SERVICE_URL_LENGTH);

const text = (min: number, max: number) =>
  v.pipe(
    v.string("must be a string"),
    v.minLength(min, `must be at least ${min} character(s)`),
    v.maxLength(max, `must be at most ${max} characters`),
  );

const Slug = v.pipe(
  v.string("must be a string"),
  v.regex(/^[a-z0-9-]{1,32}$/, "must be 1-32 characters of a-z, 0-9 and -"),
);

export const ResourceFieldsSchema = v.object({
  resourceUrl: HttpUrl,
  httpMethod: v.optional(v.picklist(RESOURCE_METHODS, `must be one of ${RESOURCE_METHODS.join(", ")}`), "GET"),
  sellerResourceId: v.optional(text(1, 64)),
  title: text(1, 64),
  description: v.optional(text(0, 280)),
  useCase: v.optional(text(0, 255)),
  category: v.optional(Slug),
  tags: v.optional(
    v.pipe(v.array(Slug, "must be an array of tags"), v.maxLength(MAX_TAGS, `must have at most ${MAX_TAGS} tags`)),
    [],
  ),
  scheme: v.picklist(LISTED_SCHEMES, 'must be "exact" or "sla-escrow"'),
  network: v.optional(text(1, 64)),
  intentContractUrl: v.optional(HttpUrl),
  listingOptIn: v.optional(v.boolean("must be true or false"), true),
});
export type ResourceFieldsInput = v.InferOutput<typeof ResourceFieldsSchema>;

export const ResourceRegisterBodySchema = v.object({
  wallet: Base58Address,
  ...SignedFields,
  resource: ResourceFieldsSchema,
});

const ResourceId = v.pipe(
  v.number("must be a resource id"),
  v.safeInteger("must be a whole number up to 2^53 - 1"),
  v.minValue(1, "must be positive"),
);

/**
 * Retire and probe name the resource by `id` or, as pr402 also allows (public/openapi.json), by `resourceUrl`
 * (plus `httpMethod` when the URL is registered under several methods). Exactly one of id / resourceUrl.
 */
export const ResourceIdBodySchema = v.pipe(
  v.object({
    wallet: Base58Address,
    ...SignedFields,
    id: v.optional(ResourceId),
    resourceUrl: v.optional(HttpUrl),
    httpMethod: v.optional(v.picklist(RESOURCE_METHODS, `must be one of ${RESOURCE_METHODS.join(", ")}`)),
  }),
  v.check(
    (body) => (body.id === undefined) !== (body.resourceUrl === undefined),
    "give the resource's id or its resourceUrl (exactly one)",
  ),
);

export const ResourceHarvestBodySchema = v.object({ wallet: Base58Address, ...SignedFields });

export const ResourceIdPathSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^\d{1,15}$/, "must be a numeric id"), v.transform(Number)),
});

const RESOURCE_CHALLENGE_ACTIONS = [
  "resource:any",
  "resource:register",
  "resource:retire",
  "resource:probe",
  "resource:list",
] as const;

export const ResourceChallengeQuerySchema = v.object({
  wallet: Base58Address,
  action: v.optional(
    v.picklist(RESOURCE_CHALLENGE_ACTIONS, `must be one of ${RESOURCE_CHALLENGE_ACTIONS.join(", ")}`),
    DEFAULT_RESOURCE_CHALLENGE_ACTION,
  ),
});

export const OwnerResourcesSchema = v.object({
  ...SignedFields,
  limit: v.optional(
    v.union(
      [
        v.pipe(v.number(), v.safeInteger()),
        v.pipe(v.string(), v.regex(/^-?\d{1,6}$/, "must be an integer"), v.transform(Number)),
      ],
      "must be a whole number (1..100)",
    ),
  ),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, "must be the nextCursor of the previous page"))),
});
