import type { Address } from "@solana/kit";
import type * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { badRequest, type ErrorReason, FacilitatorError, notFound } from "../../platform/errors/catalogue";
import { clampPageLimit } from "../../platform/paging/page-limit";
import { getProvider, type ProviderRow } from "../../store/providers";
import {
  getOwnedResource,
  getOwnedResourcesByUrl,
  listOwnerResources,
  type ResourceFields,
  type ResourceRow,
  recordProbe,
  retireResource,
  upsertResource,
} from "../../store/resources";
import type { ChallengeAction } from "../wallet-challenges/challenge-actions";
import { consumeChallenge, verifySignedChallenge } from "../wallet-challenges/signed-challenge";
import { ensureOriginProof } from "./origin-proof";
import { type ProbeResult, probeResource } from "./probe";
import { type OwnedResourceEntry, toOwnedResourceEntry } from "./resource-entry";
import type {
  OwnerResourcesSchema,
  ResourceFieldsInput,
  ResourceHarvestBodySchema,
  ResourceIdBodySchema,
  ResourceRegisterBodySchema,
} from "./resource-inputs";

/** Verifies the signed challenge for `action`, runs `check`, then uses the challenge up (nothing is burnt by a 4xx). */
async function authorize<T>(
  config: Config,
  db: D1Database,
  request: { wallet: Address; message: string; signature: string; domain: string },
  action: ChallengeAction,
  check: () => Promise<T>,
): Promise<T> {
  const challenge = await verifySignedChallenge(config, {
    wallet: request.wallet,
    action,
    message: request.message,
    signature: request.signature,
    domain: request.domain,
  });
  const checked = await check();
  await consumeChallenge(db, challenge);
  return checked;
}

/**
 * What acting on a resource of a merchant can answer: not a verified merchant (or no serviceUrl), origin not proven.
 */
export const RESOURCE_OWNER_REASONS = ["forbidden", "origin_not_proven"] as const satisfies readonly ErrorReason[];

/**
 * Gate 1 of docs/facilitator-spec.md §3.3: registering needs a verified (registered, not retired) merchant with a
 * service origin.
 */
export async function requireVerifiedMerchant(
  db: D1Database,
  wallet: Address,
): Promise<ProviderRow & { serviceUrl: string }> {
  const provider = await getProvider(db, wallet);
  if (provider === null || provider.retiredAtMs !== null) {
    throw new FacilitatorError(
      "FORBIDDEN",
      `wallet ${wallet} is not a verified merchant: register it first (POST /sellers/{wallet}/register)`,
    );
  }
  if (!provider.serviceUrl)
    throw new FacilitatorError(
      "FORBIDDEN",
      `wallet ${wallet} has no serviceUrl: re-register with discovery.serviceUrl set to your origin`,
    );
  return provider as ProviderRow & { serviceUrl: string };
}

export function assertOnMerchantOrigin(resourceUrl: string, serviceUrl: string): string {
  const origin = new URL(serviceUrl).origin;
  if (new URL(resourceUrl).origin !== origin)
    throw badRequest(`resource.resourceUrl: must be on the merchant's origin ${origin} (its serviceUrl)`);
  return origin;
}

export interface ProbeView {
  ok: boolean;
  httpStatus: number | null;
  scheme: string | null;
  error: string | null;
}

function probeView(result: ProbeResult): ProbeView {
  return { ok: result.ok, httpStatus: result.httpStatus, scheme: result.scheme, error: result.error };
}

/** Probes one stored resource and records the result. */
export async function probeAndRecord(
  config: Config,
  db: D1Database,
  row: ResourceRow,
  nowMs = Date.now(),
): Promise<ProbeResult> {
  const result = await probeResource(row, { allowLoopback: config.probe.allowLoopback });
  await recordProbe(db, row.id, result, nowMs, config.probe.maxConsecutiveFailures);
  return result;
}

/** Validated input → stored fields (the URL in its normalized form, so re-registration matches it). */
export function toResourceFields(fields: ResourceFieldsInput, merchantOrigin: string): ResourceFields {
  return {
    resourceUrl: new URL(fields.resourceUrl).href,
    httpMethod: fields.httpMethod,
    sellerResourceId: fields.sellerResourceId ?? null,
    title: fields.title,
    description: fields.description ?? null,
    useCase: fields.useCase ?? null,
    category: fields.category ?? null,
    tags: fields.tags,
    scheme: fields.scheme,
    network: fields.network ?? null,
    intentContractUrl: fields.intentContractUrl ?? null,
    merchantOrigin,
    listingOptIn: fields.listingOptIn,
  };
}

/**
 * Stores a resource of a verified merchant (same URL and method = update) within the per-wallet cap (409 beyond it).
 */
export async function storeResource(
  config: Config,
  db: D1Database,
  wallet: string,
  fields: ResourceFieldsInput,
  merchantOrigin: string,
): Promise<ResourceRow> {
  const cap = config.probe.maxResourcesPerWallet;
  const row = await upsertResource(db, wallet, toResourceFields(fields, merchantOrigin), Date.now(), cap);
  if (row === null) {
    throw new FacilitatorError(
      "CONFLICT",
      `wallet ${wallet} already ` +
        `has ${cap} live resources (SVC_MAX_RESOURCES_PER_WALLET): retire one first (POST /resources/retire)`,
      {
        reason: "resource_limit_reached",
        fields: { limit: cap },
      },
    );
  }
  return row;
}

/** Stores a resource of a verified merchant and probes it once (its origin proven by the caller). */
export async function saveAndProbe(
  config: Config,
  db: D1Database,
  wallet: string,
  fields: ResourceFieldsInput,
  merchantOrigin: string,
): Promise<{ row: ResourceRow; probe: ProbeResult }> {
  const row = await storeResource(config, db, wallet, fields, merchantOrigin);
  return { row, probe: await probeAndRecord(config, db, row) };
}

/** `POST /resources/register` (docs/facilitator-spec.md §4.4). */
export async function registerResource(
  config: Config,
  db: D1Database,
  body: v.InferOutput<typeof ResourceRegisterBodySchema>,
  domain: string,
) {
  const origin = await authorize(config, db, { ...body, domain }, "resource:register", async () => {
    const merchant = await requireVerifiedMerchant(db, body.wallet);
    const origin = assertOnMerchantOrigin(body.resource.resourceUrl, merchant.serviceUrl);
    // Nothing is stored or probed on an origin that has not named this wallet (origin-proof.ts).
    await ensureOriginProof(db, merchant, origin, config.probe.allowLoopback);
    return origin;
  });
  const { row, probe } = await saveAndProbe(config, db, body.wallet, body.resource, origin);
  return {
    id: row.id,
    resourceUrl: row.resourceUrl,
    listingOptIn: row.listingOptIn,
    probe: probeView(probe),
    note: probe.ok
      ? row.listingOptIn
        ? "Registered and probed: the resource is publicly listed."
        : "Registered and probed; not listed because listingOptIn is false."
      : `Registered, but the 402 probe failed ` +
        `(${probe.error}); the resource is listed once a probe passes (POST /resources/probe or the hourly probe job).`,
  };
}

/** `POST /resources/retire`: the row is kept (audit) but leaves every listing. */
export async function retireOwnedResource(
  config: Config,
  db: D1Database,
  body: v.InferOutput<typeof ResourceIdBodySchema>,
  domain: string,
) {
  const id = await authorize(
    config,
    db,
    { ...body, domain },
    "resource:retire",
    async () => (await findOwnedResource(db, body)).id,
  );
  const retired = await retireResource(db, body.wallet, id, Date.now());
  return {
    id,
    retired: retired > 0,
    note: retired > 0 ? "Resource retired and unlisted." : "The resource was already retired.",
  };
}

/** `POST /resources/probe`: re-probes one of the wallet's resources now. */
export async function probeOwnedResource(
  config: Config,
  db: D1Database,
  body: v.InferOutput<typeof ResourceIdBodySchema>,
  domain: string,
) {
  const row = await authorize(config, db, { ...body, domain }, "resource:probe", async () => {
    const owned = await findOwnedResource(db, body);
    if (owned.retiredAtMs !== null) throw badRequest(`id: resource ${owned.id} is retired; register it again first`);
    const merchant = await requireVerifiedMerchant(db, body.wallet);
    const origin = new URL(owned.resourceUrl).origin;
    if (owned.merchantOrigin !== origin || new URL(merchant.serviceUrl).origin !== origin) {
      throw badRequest(
        `id: ` +
          `resource ${owned.id} is not on the merchant's current ` +
          `origin ${new URL(merchant.serviceUrl).origin}; register it there again`,
      );
    }
    await ensureOriginProof(db, merchant, origin, config.probe.allowLoopback);
    return owned;
  });
  const probe = await probeAndRecord(config, db, row);
  const after = await getOwnedResource(db, body.wallet, row.id);
  return { id: row.id, ...probeView(probe), listed: Boolean(after?.listed) };
}

/** The wallet's resource named by id, or by resourceUrl (normalized as on register) and, if ambiguous, httpMethod. */
async function findOwnedResource(
  db: D1Database,
  body: v.InferOutput<typeof ResourceIdBodySchema>,
): Promise<ResourceRow> {
  if (body.id !== undefined) {
    const owned = await getOwnedResource(db, body.wallet, body.id);
    if (owned === null) throw notFound(`Resource ${body.id} is not registered by ${body.wallet}`);
    return owned;
  }
  const url = new URL(body.resourceUrl!).href;
  const rows = (await getOwnedResourcesByUrl(db, body.wallet, url)).filter(
    (row) => body.httpMethod === undefined || row.httpMethod === body.httpMethod,
  );
  if (rows.length === 0)
    throw notFound(
      `Resource ${url}${body.httpMethod ? ` (${body.httpMethod})` : ""} is not registered by ${body.wallet}`,
    );
  if (rows.length > 1) {
    throw badRequest(
      `resourceUrl: ${url} is registered ` +
        `under ${rows.map((r) => r.httpMethod).join(", ")}; add httpMethod or give the id`,
    );
  }
  return rows[0]!;
}

/** `GET|POST /sellers/{wallet}/resources`: every resource of the wallet, newest id first, with probe diagnostics. */
export async function listOwnedResources(
  config: Config,
  db: D1Database,
  wallet: Address,
  request: v.InferOutput<typeof OwnerResourcesSchema>,
  domain: string,
): Promise<{ wallet: Address; entries: OwnedResourceEntry[]; nextCursor: string | null }> {
  await authorize(
    config,
    db,
    { wallet, message: request.message, signature: request.signature, domain },
    "resource:list",
    async () => undefined,
  );
  const limit = clampPageLimit(request.limit);
  const rows = await listOwnerResources(
    db,
    wallet,
    limit,
    request.cursor === undefined ? undefined : Number(request.cursor),
  );
  return {
    wallet,
    entries: rows.map(toOwnedResourceEntry),
    nextCursor: rows.length === limit ? String(rows[rows.length - 1]!.id) : null,
  };
}

export type HarvestBody = v.InferOutput<typeof ResourceHarvestBodySchema>;
