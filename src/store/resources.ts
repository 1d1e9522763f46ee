import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { database } from "./db";
import { resources } from "./schema";

export type ResourceRow = typeof resources.$inferSelect;

export interface ResourceFields {
  resourceUrl: string;
  httpMethod: string;
  sellerResourceId: string | null;
  title: string;
  description: string | null;
  useCase: string | null;
  category: string | null;
  tags: string[];
  scheme: string;
  network: string | null;
  intentContractUrl: string | null;
  merchantOrigin: string;
  listingOptIn: boolean;
}

export interface ProbeOutcome {
  ok: boolean;
  httpStatus: number | null;
  scheme: string | null;
  error: string | null;
  accepts?: unknown[];
  bazaar?: unknown;
}

/**
 * Registers or updates (same wallet, URL and method) a resource. Content changes keep the probe history but
 * re-evaluate the listing flag: a retired row that comes back is listed again only after a passing probe.
 */
export async function upsertResource(d1: D1Database, walletPubkey: string, fields: ResourceFields, nowMs: number): Promise<ResourceRow> {
  const values = {
    resourceUrl: fields.resourceUrl,
    httpMethod: fields.httpMethod,
    sellerResourceId: fields.sellerResourceId,
    title: fields.title,
    description: fields.description,
    useCase: fields.useCase,
    category: fields.category,
    tagsJson: JSON.stringify(fields.tags),
    scheme: fields.scheme,
    network: fields.network,
    intentContractUrl: fields.intentContractUrl,
    merchantOrigin: fields.merchantOrigin,
    listingOptIn: fields.listingOptIn,
    registrationVerifiedAtMs: nowMs,
    updatedAtMs: nowMs,
    retiredAtMs: null,
  };
  const written = await database(d1)
    .insert(resources)
    .values({ walletPubkey, ...values, listed: false })
    .onConflictDoUpdate({
      target: [resources.walletPubkey, resources.resourceUrl, resources.httpMethod],
      // Still listed only if it was passing and not retired before (a retired row must pass a fresh probe).
      set: { ...values, listed: sql`${fields.listingOptIn ? 1 : 0} AND ${resources.retiredAtMs} IS NULL AND ${resources.listed}` },
    })
    .returning();
  return written[0]!;
}

export async function getOwnedResource(d1: D1Database, walletPubkey: string, id: number): Promise<ResourceRow | null> {
  const rows = await database(d1)
    .select()
    .from(resources)
    .where(and(eq(resources.id, id), eq(resources.walletPubkey, walletPubkey)))
    .limit(1);
  return rows[0] ?? null;
}

/** The wallet's rows for one URL (one per HTTP method), for routes addressed by `resourceUrl` instead of `id`. */
export async function getOwnedResourcesByUrl(d1: D1Database, walletPubkey: string, resourceUrl: string): Promise<ResourceRow[]> {
  return database(d1)
    .select()
    .from(resources)
    .where(and(eq(resources.walletPubkey, walletPubkey), eq(resources.resourceUrl, resourceUrl)))
    .limit(RESOURCE_METHOD_COUNT);
}

/** At most one row per method (resources_owner_url_idx). */
const RESOURCE_METHOD_COUNT = 5;

export async function retireResource(d1: D1Database, walletPubkey: string, id: number, nowMs: number): Promise<number> {
  const retired = await database(d1)
    .update(resources)
    .set({ retiredAtMs: nowMs, updatedAtMs: nowMs, listed: false })
    .where(and(eq(resources.id, id), eq(resources.walletPubkey, walletPubkey), isNull(resources.retiredAtMs)))
    .returning({ id: resources.id });
  return retired.length;
}

/**
 * Stores a probe result. A pass lists an opted-in, live resource; a failure only unlists it once
 * `maxConsecutiveFailures` probes in a row failed (one network blip does not drop a seller).
 */
export async function recordProbe(d1: D1Database, id: number, outcome: ProbeOutcome, nowMs: number, maxConsecutiveFailures: number): Promise<void> {
  await probeStatement(d1, id, outcome, nowMs, maxConsecutiveFailures).run();
}

/** The same write as a prepared statement, so the cron job can batch many in one D1 round trip. */
export function probeStatement(d1: D1Database, id: number, outcome: ProbeOutcome, nowMs: number, maxConsecutiveFailures: number): D1PreparedStatement {
  if (outcome.ok) {
    return d1
      .prepare(
        `UPDATE resources SET last_probe_at_ms = ?1, last_probe_ok = 1, last_probe_status = ?2, last_probe_error = NULL,
           last_probe_scheme = ?3, probe_failures = 0, last_probe_ok_at_ms = ?1, probe_accepts_json = ?4, probe_bazaar_json = ?5,
           listed = (listing_opt_in AND retired_at_ms IS NULL)
         WHERE id = ?6`,
      )
      .bind(nowMs, outcome.httpStatus, outcome.scheme, JSON.stringify(outcome.accepts ?? []), outcome.bazaar === undefined ? null : JSON.stringify(outcome.bazaar), id);
  }
  return d1
    .prepare(
      `UPDATE resources SET last_probe_at_ms = ?1, last_probe_ok = 0, last_probe_status = ?2, last_probe_error = ?3,
         probe_failures = probe_failures + 1,
         listed = (listed AND probe_failures + 1 < ?4)
       WHERE id = ?5`,
    )
    .bind(nowMs, outcome.httpStatus, (outcome.error ?? "").slice(0, 255), maxConsecutiveFailures, id);
}

/** Live (not retired) resources whose last probe is oldest (never-probed first). */
export async function resourcesDueForProbe(d1: D1Database, limit: number): Promise<ResourceRow[]> {
  return database(d1)
    .select()
    .from(resources)
    .where(isNull(resources.retiredAtMs))
    .orderBy(sql`${resources.lastProbeAtMs} IS NOT NULL`, asc(resources.lastProbeAtMs), asc(resources.id))
    .limit(limit);
}

export async function listOwnerResources(d1: D1Database, walletPubkey: string, limit: number, beforeId?: number): Promise<ResourceRow[]> {
  return database(d1)
    .select()
    .from(resources)
    .where(beforeId === undefined ? eq(resources.walletPubkey, walletPubkey) : and(eq(resources.walletPubkey, walletPubkey), sql`${resources.id} < ${beforeId}`))
    .orderBy(desc(resources.id))
    .limit(limit);
}
