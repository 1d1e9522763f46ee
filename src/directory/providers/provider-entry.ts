import type { ProviderRow } from "../../store/providers";
import { rfc3339Micros } from "../../platform/paging/page-cursor";

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

/** The public directory record of a provider row (docs/wire-notes.md "Directory", provider entry). */
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
