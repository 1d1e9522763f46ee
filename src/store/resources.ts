import { and, asc, desc, eq, getTableColumns, isNull, lte, sql } from "drizzle-orm";
import { database } from "./db";
import { providers, resources } from "./schema";

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
  /** A transport failure (timeout, connection, 5xx): tolerated up to the maximum in a row. */
  transient?: boolean;
  accepts?: unknown[];
  bazaar?: unknown;
}

/**
 * Registers or updates (same wallet, URL and method) a resource, within `maxLiveResources` live (not retired) resources
 * per wallet: the count and the insert are one statement, so concurrent registrations cannot overshoot. Returns null
 * when the cap refuses a new (or revived) row; an update of a live row is always allowed. Content changes keep the
 * probe history but re-evaluate the listing flag: a retired row that comes back is listed again only after a passing
 * probe, and goes back into the probe queue.
 */
export async function upsertResource(
  d1: D1Database,
  walletPubkey: string,
  fields: ResourceFields,
  nowMs: number,
  maxLiveResources: number,
): Promise<ResourceRow | null> {
  const row = await d1
    .prepare(
      `INSERT INTO resources (wallet_pubkey, resource_url, http_method, seller_resource_id, title, description, ` +
        `use_case, category, tags_json,
         scheme, network, intent_contract_url, merchant_origin, listing_opt_in, registration_verified_at_ms, ` +
        `updated_at_ms, retired_at_ms, listed, next_probe_at_ms)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15, NULL, 0, 0
       WHERE (SELECT count(*) FROM resources WHERE wallet_pubkey = ?1 AND retired_at_ms IS NULL) < ?16
          OR EXISTS (SELECT 1 FROM resources WHERE wallet_pubkey = ?1 AND resource_url = ?2 AND http_method = ?3 AND ` +
        `retired_at_ms IS NULL)
       ON CONFLICT (wallet_pubkey, resource_url, http_method) DO UPDATE SET
         seller_resource_id = excluded.seller_resource_id, title = excluded.title, description = excluded.description,
         use_case = excluded.use_case, category = excluded.category, tags_json = excluded.tags_json, scheme = ` +
        `excluded.scheme,
         network = excluded.network, intent_contract_url = excluded.intent_contract_url, merchant_origin = ` +
        `excluded.merchant_origin,
         listing_opt_in = excluded.listing_opt_in, registration_verified_at_ms = excluded.registration_verified_at_ms,
         updated_at_ms = excluded.updated_at_ms, retired_at_ms = NULL,
         last_probe_ok = CASE WHEN resources.retired_at_ms IS NULL THEN resources.last_probe_ok ELSE 0 END,
         listed = (excluded.listing_opt_in AND resources.retired_at_ms IS NULL AND resources.listed),
         next_probe_at_ms = CASE WHEN resources.retired_at_ms IS NULL THEN resources.next_probe_at_ms ELSE 0 END
       RETURNING *`,
    )
    .bind(
      walletPubkey,
      fields.resourceUrl,
      fields.httpMethod,
      fields.sellerResourceId,
      fields.title,
      fields.description,
      fields.useCase,
      fields.category,
      JSON.stringify(fields.tags),
      fields.scheme,
      fields.network,
      fields.intentContractUrl,
      fields.merchantOrigin,
      fields.listingOptIn ? 1 : 0,
      nowMs,
      maxLiveResources,
    )
    .first<Record<string, unknown>>();
  return row === null ? null : rawToResourceRow(row);
}

/**
 * A raw D1 row (snake_case columns, from a hand-written statement) as drizzle would read it: each column under its
 * property name and through its own driver mapping, so a boolean column is `true`/`false`, never SQLite's 1/0.
 * Other keys (a computed rank, a count) keep their value under the camelCase of their name.
 */
export function rawToResourceRow(raw: Record<string, unknown>): ResourceRow {
  const row: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const column = RESOURCE_COLUMNS_BY_SQL_NAME.get(name);
    if (column === undefined) row[name.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase())] = value;
    else row[column.key] = value === null ? null : column.column.mapFromDriverValue(value);
  }
  return row as unknown as ResourceRow;
}

const RESOURCE_COLUMNS_BY_SQL_NAME = new Map(
  Object.entries(getTableColumns(resources)).map(([key, column]) => [column.name, { key, column }]),
);

export async function getOwnedResource(d1: D1Database, walletPubkey: string, id: number): Promise<ResourceRow | null> {
  const rows = await database(d1)
    .select()
    .from(resources)
    .where(and(eq(resources.id, id), eq(resources.walletPubkey, walletPubkey)))
    .limit(1);
  return rows[0] ?? null;
}

/** The wallet's rows for one URL (one per HTTP method), for routes addressed by `resourceUrl` instead of `id`. */
export async function getOwnedResourcesByUrl(
  d1: D1Database,
  walletPubkey: string,
  resourceUrl: string,
): Promise<ResourceRow[]> {
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

/** Probe back-off: the first retry after one cron period, doubling per failure up to a day. */
export const PROBE_BACKOFF_BASE_MS = 10 * 60_000;
export const PROBE_BACKOFF_MAX_MS = 24 * 3_600_000;
/** A resource failing for this long leaves the probe queue (a passing probe of the seller's own brings it back). */
export const PROBE_GIVE_UP_AFTER_MS = 7 * 24 * 3_600_000;

/**
 * Stores a probe result (docs/facilitator-spec.md §3.3 gate 4). A pass lists an opted-in, live resource. A definite
 * answer that is not a valid 402 (another status, a bad 402, a refused target) unlists it at once; only transport
 * failures (timeout, connection failure, 5xx) are tolerated, until `maxConsecutiveFailures` in a row. `last_probe_ok`
 * is the gate itself, so it always equals what the listing uses: it stays true through a tolerated transport failure.
 */
export async function recordProbe(
  d1: D1Database,
  id: number,
  outcome: ProbeOutcome,
  nowMs: number,
  maxConsecutiveFailures: number,
): Promise<void> {
  await probeStatement(d1, id, outcome, nowMs, maxConsecutiveFailures).run();
}

/**
 * The same write as a prepared statement, so the cron job can batch many in one D1 round trip. A failure also
 * schedules the next probe: PROBE_BACKOFF_BASE_MS << failures so far, at most PROBE_BACKOFF_MAX_MS, and none
 * (out of the queue) once the resource has been failing for PROBE_GIVE_UP_AFTER_MS.
 */
export function probeStatement(
  d1: D1Database,
  id: number,
  outcome: ProbeOutcome,
  nowMs: number,
  maxConsecutiveFailures: number,
): D1PreparedStatement {
  if (outcome.ok) {
    return d1
      .prepare(
        `UPDATE resources SET last_probe_at_ms = ?1, last_probe_ok = 1, last_probe_status = ?2, last_probe_error = NULL,
           last_probe_scheme = ?3, probe_failures = 0, last_probe_ok_at_ms = ?1, probe_accepts_json = ?4, ` +
          `probe_bazaar_json = ?5,
           failing_since_ms = NULL, next_probe_at_ms = ?1,
           listed = (listing_opt_in AND retired_at_ms IS NULL)
         WHERE id = ?6`,
      )
      .bind(
        nowMs,
        outcome.httpStatus,
        outcome.scheme,
        JSON.stringify(outcome.accepts ?? []),
        outcome.bazaar === undefined ? null : JSON.stringify(outcome.bazaar),
        id,
      );
  }
  // Tolerated: a transport failure of a passing resource, fewer than the maximum in a row. Anything else fails the
  // gate.
  const stillPassing = outcome.transient === true ? "(last_probe_ok AND probe_failures + 1 < ?4)" : "0";
  return d1
    .prepare(
      `UPDATE resources SET last_probe_at_ms = ?1, last_probe_status = ?2, last_probe_error = ?3,
         last_probe_ok = ${stillPassing},
         listed = (listing_opt_in AND retired_at_ms IS NULL AND ${stillPassing}),
         probe_failures = probe_failures + 1,
         failing_since_ms = coalesce(failing_since_ms, ?1),
         next_probe_at_ms = CASE WHEN ?1 - coalesce(failing_since_ms, ?1) >= ?6 THEN NULL
           ELSE ?1 + min(?7 << min(probe_failures, 16), ?8) END
       WHERE id = ?5`,
    )
    .bind(
      nowMs,
      outcome.httpStatus,
      (outcome.error ?? "").slice(0, 255),
      maxConsecutiveFailures,
      id,
      PROBE_GIVE_UP_AFTER_MS,
      PROBE_BACKOFF_BASE_MS,
      PROBE_BACKOFF_MAX_MS,
    );
}

/**
 * The probe queue: live resources due by `nowMs` (never probed first, then the longest-waiting), only on an origin
 * their merchant (verified, not retired) has proven. Failing resources wait out their back-off, and those past
 * the give-up time are not in the queue at all, so dead entries cannot crowd out the re-probing of live ones.
 */
export async function resourcesDueForProbe(d1: D1Database, limit: number, nowMs: number): Promise<ResourceRow[]> {
  const rows = await database(d1)
    .select({ resource: resources })
    .from(resources)
    .innerJoin(providers, eq(providers.walletPubkey, resources.walletPubkey))
    .where(
      and(
        isNull(resources.retiredAtMs),
        lte(resources.nextProbeAtMs, nowMs),
        isNull(providers.retiredAtMs),
        eq(providers.provenOrigin, resources.merchantOrigin),
      ),
    )
    .orderBy(asc(resources.nextProbeAtMs), asc(resources.id))
    .limit(limit);
  return rows.map((row) => row.resource);
}

export async function listOwnerResources(
  d1: D1Database,
  walletPubkey: string,
  limit: number,
  beforeId?: number,
): Promise<ResourceRow[]> {
  return database(d1)
    .select()
    .from(resources)
    .where(
      beforeId === undefined
        ? eq(resources.walletPubkey, walletPubkey)
        : and(eq(resources.walletPubkey, walletPubkey), sql`${resources.id} < ${beforeId}`),
    )
    .orderBy(desc(resources.id))
    .limit(limit);
}
