import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { endpointCache } from "../../chain/endpoint-cache";
import type { Config } from "../../platform/config/load-config";
import {
  type Bank,
  decodeBank,
  decodeEscrow,
  decodeEscrowConfig,
  type Escrow,
  type EscrowConfig,
} from "./program/accounts";
import { findBankPda, findEscrowConfigPda, findEscrowPda } from "./program/pda";

/** How long an isolate reuses the Bank, Config and Escrow accounts (operator settings; they change rarely). */
const ESCROW_FACTS_CACHE_MS = 60_000;

/** The SLA-Escrow deployment this facilitator serves: program, Bank and Config, and one mint's Escrow. */
export interface SlaEscrowFacts {
  programId: Address;
  bank: Address;
  configAddress: Address;
  escrow: Address;
  /** Null when the account is missing: the rail is not configured on this cluster. */
  bankAccount: Bank | null;
  escrowConfig: EscrowConfig | null;
  escrowAccount: Escrow | null;
}

const cache = endpointCache<SlaEscrowFacts>(ESCROW_FACTS_CACHE_MS);

/**
 * Bank, Config and the mint's Escrow in one batched read, cached per isolate for a minute once read. A failed read is
 * not cached (the caller sees the RPC error; the next call reads again).
 */
export async function getSlaEscrowFacts(config: Config, mint: Address): Promise<SlaEscrowFacts> {
  const key = [config.programs.slaEscrow, mint];
  const hit = cache.get(config, key);
  if (hit) return hit;
  const facts = await readFacts(config, mint);
  cache.set(config, key, facts);
  return facts;
}

/** Where a payment in `mint` is paid to: the Escrow PDA of (mint, bank). No chain access. */
export async function escrowAddresses(
  programId: Address,
  mint: Address,
): Promise<{ bank: Address; configAddress: Address; escrow: Address }> {
  const [[bank], [configAddress]] = await Promise.all([findBankPda(programId), findEscrowConfigPda(programId)]);
  const [escrow] = await findEscrowPda(programId, mint, bank);
  return { bank, configAddress, escrow };
}

async function readFacts(config: Config, mint: Address): Promise<SlaEscrowFacts> {
  const programId = config.programs.slaEscrow;
  const { bank, configAddress, escrow } = await escrowAddresses(programId, mint);
  const accounts = await fetchAccounts(config, [bank, configAddress, escrow]);
  const owned = (address: Address) => {
    const account = accounts.get(address);
    return account && account.owner === programId ? account.data : null;
  };
  const bankData = owned(bank);
  const configData = owned(configAddress);
  const escrowData = owned(escrow);
  return {
    programId,
    bank,
    configAddress,
    escrow,
    bankAccount: bankData ? decodeBank(bankData) : null,
    escrowConfig: configData ? decodeEscrowConfig(configData) : null,
    escrowAccount: escrowData ? decodeEscrow(escrowData) : null,
  };
}
