import type { ProviderRow } from "../store/providers";

/** RFC 3339 with microseconds and Z (wire-notes "Directory"); stored times are milliseconds, so µs are 000. */
export function rfc3339Micros(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A list cursor (the last entry's `updatedAt`) as an exclusive upper bound in milliseconds, or null when it is
 * not RFC 3339. Sub-millisecond digits round up, so every row strictly older than the cursor instant is kept.
 */
export function cursorToExclusiveMs(cursor: string): number | null {
  const match = RFC3339.exec(cursor);
  if (!match) return null;
  const wholeSecondsMs = Date.parse(`${match[1]}${match[3]}`);
  if (!Number.isFinite(wholeSecondsMs)) return null;
  const micros = Number((match[2] ?? "").padEnd(6, "0").slice(0, 6));
  const hasMoreDigits = /[1-9]/.test((match[2] ?? "").slice(6));
  return wholeSecondsMs + Math.ceil((micros + (hasMoreDigits ? 1 : 0)) / 1000);
}

export interface ProviderEntry {
  walletPubkey: string;
  settlementMode: "native_sol" | "spl";
  splMint?: string;
  splitVaultPda?: string;
  serviceUrl: string | null;
  displayName?: string;
  description?: string;
  tags: string[];
  serviceMetadata?: Record<string, unknown>;
  listingOptIn: boolean;
  registrationVerifiedAt: string;
  updatedAt: string;
}

/** The public directory record of a provider row (wire-notes "Directory", provider entry). */
export function toProviderEntry(row: ProviderRow): ProviderEntry {
  return {
    walletPubkey: row.walletPubkey,
    settlementMode: row.settlementMode,
    ...(row.splMint ? { splMint: row.splMint } : {}),
    ...(row.splitVaultPda ? { splitVaultPda: row.splitVaultPda } : {}),
    serviceUrl: row.serviceUrl,
    ...(row.displayName ? { displayName: row.displayName } : {}),
    ...(row.description ? { description: row.description } : {}),
    tags: parseJson<string[]>(row.tagsJson) ?? [],
    ...(row.serviceMetadataJson ? { serviceMetadata: parseJson<Record<string, unknown>>(row.serviceMetadataJson) ?? {} } : {}),
    listingOptIn: row.listingOptIn,
    registrationVerifiedAt: rfc3339Micros(row.registrationVerifiedAtMs),
    updatedAt: rfc3339Micros(row.updatedAtMs),
  };
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
