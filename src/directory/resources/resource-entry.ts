import { rfc3339Micros } from "../../platform/paging/page-cursor";
import type { ResourceRow } from "../../store/resources";

/**
 * Public directory record of a resource (docs/wire-notes.md "Directory", resource entry; docs/facilitator-spec.md
 * §2.7).
 */
export interface ResourceEntry {
  id: number;
  walletPubkey: string;
  resourceUrl: string;
  httpMethod: string;
  title: string;
  description?: string;
  useCase?: string;
  category?: string;
  tags: string[];
  scheme: string;
  network?: string;
  intentContractUrl?: string;
  merchantOrigin?: string;
  sellerResourceId?: string;
  listingOptIn: boolean;
  lastProbeOk: boolean;
  lastProbeAt?: string;
  /** What it costs: the first line of the 402 its last passing probe saw (raw units of `asset`); absent before one. */
  price?: ListedPrice;
  registrationVerifiedAt: string;
  updatedAt: string;
}

export interface ListedPrice {
  scheme: string;
  asset: string;
  amount: string;
}

/** The owner's view adds the probe diagnostics and whether the resource is publicly listed. */
export interface OwnedResourceEntry extends ResourceEntry {
  listed: boolean;
  retired: boolean;
  lastProbeStatus: number | null;
  lastProbeError: string | null;
  consecutiveProbeFailures: number;
}

export function toResourceEntry(row: ResourceRow): ResourceEntry {
  return {
    id: row.id,
    walletPubkey: row.walletPubkey,
    resourceUrl: row.resourceUrl,
    httpMethod: row.httpMethod,
    title: row.title,
    ...(row.description ? { description: row.description } : {}),
    ...(row.useCase ? { useCase: row.useCase } : {}),
    ...(row.category ? { category: row.category } : {}),
    tags: parseJson<string[]>(row.tagsJson) ?? [],
    scheme: row.scheme,
    ...(row.network ? { network: row.network } : {}),
    ...(row.intentContractUrl ? { intentContractUrl: row.intentContractUrl } : {}),
    ...(row.merchantOrigin ? { merchantOrigin: row.merchantOrigin } : {}),
    ...(row.sellerResourceId ? { sellerResourceId: row.sellerResourceId } : {}),
    listingOptIn: Boolean(row.listingOptIn),
    lastProbeOk: Boolean(row.lastProbeOk),
    ...(row.lastProbeAtMs !== null ? { lastProbeAt: rfc3339Micros(row.lastProbeAtMs) } : {}),
    ...priceOf(row.probeAcceptsJson),
    registrationVerifiedAt: rfc3339Micros(row.registrationVerifiedAtMs),
    updatedAt: rfc3339Micros(row.updatedAtMs),
  };
}

export function toOwnedResourceEntry(row: ResourceRow): OwnedResourceEntry {
  return {
    ...toResourceEntry(row),
    listed: Boolean(row.listed),
    retired: row.retiredAtMs !== null,
    lastProbeStatus: row.lastProbeStatus,
    lastProbeError: row.lastProbeError,
    consecutiveProbeFailures: row.probeFailures,
  };
}

/** The price a probe read: the first line with a scheme, an asset and an amount (v1's `maxAmountRequired` too). */
function priceOf(acceptsJson: string | null): { price?: ListedPrice } {
  const lines = parseJson<unknown[]>(acceptsJson);
  for (const line of Array.isArray(lines) ? lines : []) {
    const { scheme, asset, amount, maxAmountRequired } = (line ?? {}) as Record<string, unknown>;
    const raw = amount ?? maxAmountRequired;
    if (typeof scheme === "string" && typeof asset === "string" && typeof raw === "string" && /^\d{1,20}$/.test(raw))
      return { price: { scheme, asset, amount: raw } };
  }
  return {};
}

export function parseJson<T>(text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
