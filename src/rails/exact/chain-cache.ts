import type { Address } from "@solana/kit";
import type { MintInfo } from "../../chain/mint";

/**
 * Per-isolate memory of chain facts that are safe to reuse: a mint's program and decimals (re-read every few
 * minutes because Token-2022 extension state can change) and accounts that exist (a vault or a token account
 * is never closed by anyone the facilitator cares about). Losing this cache only costs an extra account read.
 */
const MINT_TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 20_000;

const mints = new Map<Address, { info: MintInfo; expiresAtMs: number }>();
const existingAccounts = new Set<Address>();

export function cachedMint(mint: Address): MintInfo | null {
  const hit = mints.get(mint);
  if (!hit || hit.expiresAtMs < Date.now()) return null;
  return hit.info;
}

export function rememberMint(info: MintInfo): void {
  if (mints.size >= MAX_ENTRIES) mints.clear();
  mints.set(info.address, { info, expiresAtMs: Date.now() + MINT_TTL_MS });
}

export function isKnownToExist(account: Address): boolean {
  return existingAccounts.has(account);
}

export function rememberExists(account: Address): void {
  if (existingAccounts.size >= MAX_ENTRIES) existingAccounts.clear();
  existingAccounts.add(account);
}
