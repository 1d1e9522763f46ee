import type { Address } from "@solana/kit";
import * as v from "valibot";
import { notFound } from "../../platform/errors/catalogue";
import { formatPageCursor, parsePageCursor } from "../../platform/paging/page-cursor";
import { clampPageLimit } from "../../platform/paging/page-limit";
import { getListedProvider, listListedProviders } from "../../store/providers";
import { type ProviderEntry, toProviderEntry } from "./provider-entry";

const BASE58_WALLET = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export const ProvidersQuerySchema = v.object({
  limit: v.optional(v.pipe(v.string(), v.regex(/^-?\d{1,6}$/, "must be an integer"), v.transform(Number))),
  cursor: v.optional(v.string()),
});

export const PROVIDERS_NOTICE =
  "Verified sellers that opted in to listing. Verification proves wallet control and an activated vault only; " +
  "the facilitator does not vet the advertised service. Pricing authority is each seller's live HTTP 402.";

/**
 * `GET /providers` (docs/facilitator-spec.md §4.4): verified, opted-in, not retired; newest `updatedAt` first; cursor =
 * last `updatedAt`~wallet.
 */
export async function listProviders(
  db: D1Database,
  query: v.InferOutput<typeof ProvidersQuerySchema>,
): Promise<{ entries: ProviderEntry[]; nextCursor: string | null; notice: string }> {
  const limit = clampPageLimit(query.limit);
  const position = query.cursor === undefined ? undefined : parsePageCursor(query.cursor, BASE58_WALLET);
  const rows = await listListedProviders(
    db,
    limit,
    position && { updatedAtMs: position.updatedAtMs, wallet: position.tieBreaker },
  );
  const entries = rows.map(toProviderEntry);
  const last = rows[rows.length - 1];
  return {
    entries,
    nextCursor: rows.length === limit && last ? formatPageCursor(last.updatedAtMs, last.walletPubkey) : null,
    notice: PROVIDERS_NOTICE,
  };
}

/** `GET /providers/{wallet}`: 404 unless publicly listed, so unlisted sellers are not discoverable one by one. */
/**
 * pr402 answers `{entry, notice}` (PublicProviderSingle, public/openapi.json); our earlier clients read the
 * entry's fields at the top level, so both shapes are served in one body.
 */
export async function getListedProviderEntry(
  db: D1Database,
  wallet: Address,
): Promise<ProviderEntry & { entry: ProviderEntry; notice: string }> {
  const row = await getListedProvider(db, wallet);
  if (row === null) throw notFound(`Provider ${wallet} is not listed`);
  const entry = toProviderEntry(row);
  return { ...entry, entry, notice: PROVIDERS_NOTICE };
}
