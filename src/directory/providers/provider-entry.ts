import { rfc3339Micros } from "../../platform/paging/page-cursor";
import type { ProviderRow } from "../../store/providers";

export interface ProviderEntry {
  walletPubkey: string;
  settlementMode: "native_sol" | "spl";
  splMint?: string;
  splitVaultPda?: string;
  /** Only on a seller paid at its own wallet (no vault): its `payTo` is `walletPubkey` itself. */
  payToForm?: "wallet";
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
    // A vault seller's entry keeps pr402's shape; a wallet-form one says where it is paid instead of a vault.
    ...(row.splitVaultPda ? { splitVaultPda: row.splitVaultPda } : { payToForm: "wallet" as const }),
    serviceUrl: row.serviceUrl,
    ...(row.displayName ? { displayName: row.displayName } : {}),
    ...(row.description ? { description: row.description } : {}),
    tags: parseJson<string[]>(row.tagsJson) ?? [],
    ...(row.serviceMetadataJson
      ? { serviceMetadata: parseJson<Record<string, unknown>>(row.serviceMetadataJson) ?? {} }
      : {}),
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
