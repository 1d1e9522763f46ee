import type { Address } from "@solana/kit";
import type { Config } from "../../config/load-config";
import { fetchAccounts } from "../../solana/accounts";
import { findUniversalSettleConfigPda } from "../../programs/universal-settle/pda";
import { decodeUniversalSettleConfig, type UniversalSettleConfig } from "../../programs/universal-settle/accounts";

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

const cache = new Map<string, { facts: Promise<UniversalSettleFacts>; expiresAtMs: number }>();

/** The UniversalSettle program id, Config PDA and on-chain Config, cached per isolate for a minute. */
export function getUniversalSettleFacts(config: Config): Promise<UniversalSettleFacts> {
  const key = `${config.rpcUrl}|${config.programs.universalSettle}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expiresAtMs > now) return hit.facts;
  // An unreachable RPC is not cached: every waiter gets the defaults now, the next call reads the chain again.
  const facts = readFacts(config).catch(async () => {
    cache.delete(key);
    return { programId: config.programs.universalSettle, configAddress: await configPda(config), onChainConfig: null };
  });
  cache.set(key, { facts, expiresAtMs: now + PROGRAM_FACTS_CACHE_MS });
  return facts;
}

async function configPda(config: Config): Promise<Address> {
  const [configAddress] = await findUniversalSettleConfigPda(config.programs.universalSettle);
  return configAddress;
}

async function readFacts(config: Config): Promise<UniversalSettleFacts> {
  const programId = config.programs.universalSettle;
  const configAddress = await configPda(config);
  const account = (await fetchAccounts(config, [configAddress])).get(configAddress);
  const onChainConfig = account && account.owner === programId ? decodeUniversalSettleConfig(account.data) : null;
  return { programId, configAddress, onChainConfig };
}
