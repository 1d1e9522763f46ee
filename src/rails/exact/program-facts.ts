import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { endpointCache } from "../../chain/endpoint-cache";
import type { Config } from "../../platform/config/load-config";
import { decodeUniversalSettleConfig, type UniversalSettleConfig } from "./program/accounts";
import { findUniversalSettleConfigPda } from "./program/pda";
import { requireUniversalSettle } from "./universal-settle-program";

/** How long an isolate reuses the UniversalSettle Config account (fees change rarely; quotes are advisory). */
const PROGRAM_FACTS_CACHE_MS = 60_000;

export interface UniversalSettleFacts {
  programId: Address;
  configAddress: Address;
  /** Null when the Config account is missing or unreadable: quotes fall back to documented defaults. */
  onChainConfig: UniversalSettleConfig | null;
}

/** Documented defaults (docs/facilitator-spec.md §8) for when the Config account cannot be read. */
export const DEFAULT_FEE_BPS = 100;
export const DEFAULT_SOVEREIGN_FEE_BPS = 90;

const cache = endpointCache<UniversalSettleFacts>(PROGRAM_FACTS_CACHE_MS);

/**
 * The UniversalSettle program id, Config PDA and on-chain Config (503 `rail_not_enabled` without a program id), cached
 * per isolate for a minute once read. Requests that miss at the same time each read the chain (one getMultipleAccounts
 * each) rather than wait on another's read.
 */
export async function getUniversalSettleFacts(config: Config): Promise<UniversalSettleFacts> {
  const programId = requireUniversalSettle(config);
  const key = [programId];
  const hit = cache.get(config, key);
  if (hit) return hit;
  let facts: UniversalSettleFacts;
  try {
    facts = await readFacts(config);
  } catch {
    // An unreachable RPC is not cached: this call gets the defaults, the next one reads the chain again.
    return { programId, configAddress: await configPda(config), onChainConfig: null };
  }
  cache.set(config, key, facts);
  return facts;
}

async function configPda(config: Config): Promise<Address> {
  const [configAddress] = await findUniversalSettleConfigPda(requireUniversalSettle(config));
  return configAddress;
}

async function readFacts(config: Config): Promise<UniversalSettleFacts> {
  const programId = requireUniversalSettle(config);
  const configAddress = await configPda(config);
  const account = (await fetchAccounts(config, [configAddress])).get(configAddress);
  const onChainConfig = account && account.owner === programId ? decodeUniversalSettleConfig(account.data) : null;
  return { programId, configAddress, onChainConfig };
}
