import { and, desc, eq, isNull, lt, or } from "drizzle-orm";
import { database } from "./db";
import { providers } from "./schema";

export type ProviderRow = typeof providers.$inferSelect;

/** The settlement asset a provider row is registered for (docs/facilitator-spec.md §3.4: one per wallet). */
export interface ProviderAsset {
  settlementMode: "native_sol" | "spl";
  splMint: string | null;
}

/** Optional directory fields; absent ones keep their stored value on re-registration. */
export interface ProviderDiscovery {
  serviceUrl?: string;
  displayName?: string;
  description?: string;
  tags?: string[];
  serviceMetadata?: Record<string, unknown>;
  listingOptIn?: boolean;
}

export async function getProvider(d1: D1Database, walletPubkey: string): Promise<ProviderRow | null> {
  const rows = await database(d1).select().from(providers).where(eq(providers.walletPubkey, walletPubkey)).limit(1);
  return rows[0] ?? null;
}

/**
 * Writes the verified provider row: a first registration inserts it, a repeat refreshes the verification time,
 * clears a retirement and overwrites only the discovery fields that were sent.
 */
export async function upsertVerifiedProvider(
  d1: D1Database,
  row: {
    walletPubkey: string;
    asset: ProviderAsset;
    splitVaultPda: string | null;
    discovery: ProviderDiscovery;
    nowMs: number;
  },
): Promise<ProviderRow> {
  const discovery = discoveryColumns(row.discovery);
  const written = await database(d1)
    .insert(providers)
    .values({
      walletPubkey: row.walletPubkey,
      settlementMode: row.asset.settlementMode,
      splMint: row.asset.splMint,
      splitVaultPda: row.splitVaultPda,
      ...discovery,
      registrationVerifiedAtMs: row.nowMs,
      updatedAtMs: row.nowMs,
      retiredAtMs: null,
    })
    .onConflictDoUpdate({
      target: providers.walletPubkey,
      set: {
        settlementMode: row.asset.settlementMode,
        splMint: row.asset.splMint,
        splitVaultPda: row.splitVaultPda,
        ...discovery,
        registrationVerifiedAtMs: row.nowMs,
        updatedAtMs: row.nowMs,
        retiredAtMs: null,
      },
    })
    .returning();
  return written[0]!;
}

function discoveryColumns(discovery: ProviderDiscovery): Partial<typeof providers.$inferInsert> {
  const columns: Partial<typeof providers.$inferInsert> = {};
  if (discovery.serviceUrl !== undefined) columns.serviceUrl = discovery.serviceUrl;
  if (discovery.displayName !== undefined) columns.displayName = discovery.displayName;
  if (discovery.description !== undefined) columns.description = discovery.description;
  if (discovery.tags !== undefined) columns.tagsJson = JSON.stringify(discovery.tags);
  if (discovery.serviceMetadata !== undefined) columns.serviceMetadataJson = JSON.stringify(discovery.serviceMetadata);
  if (discovery.listingOptIn !== undefined) columns.listingOptIn = discovery.listingOptIn;
  return columns;
}

/** Retires the wallet's live provider row; returns how many rows changed (0 or 1). */
export async function retireProvider(d1: D1Database, walletPubkey: string, nowMs: number): Promise<number> {
  const retired = await database(d1)
    .update(providers)
    .set({ retiredAtMs: nowMs, updatedAtMs: nowMs })
    .where(and(eq(providers.walletPubkey, walletPubkey), isNull(providers.retiredAtMs)))
    .returning({ walletPubkey: providers.walletPubkey });
  return retired.length;
}

/** The public listing condition: verified (a row exists), opted in, not retired. */
const listed = and(isNull(providers.retiredAtMs), eq(providers.listingOptIn, true));

/**
 * Listed providers, most recently updated first (ties: wallet descending); `before` pages backwards strictly
 * after the previous page's last row, so rows sharing an `updatedAt` millisecond are neither repeated nor skipped.
 */
export async function listListedProviders(
  d1: D1Database,
  limit: number,
  before?: { updatedAtMs: number; wallet?: string },
): Promise<ProviderRow[]> {
  const after =
    before === undefined
      ? undefined
      : before.wallet === undefined
        ? lt(providers.updatedAtMs, before.updatedAtMs)
        : or(
            lt(providers.updatedAtMs, before.updatedAtMs),
            and(eq(providers.updatedAtMs, before.updatedAtMs), lt(providers.walletPubkey, before.wallet)),
          );
  return database(d1)
    .select()
    .from(providers)
    .where(after === undefined ? listed : and(listed, after))
    .orderBy(desc(providers.updatedAtMs), desc(providers.walletPubkey))
    .limit(limit);
}

export async function getListedProvider(d1: D1Database, walletPubkey: string): Promise<ProviderRow | null> {
  const rows = await database(d1)
    .select()
    .from(providers)
    .where(and(listed, eq(providers.walletPubkey, walletPubkey)))
    .limit(1);
  return rows[0] ?? null;
}
