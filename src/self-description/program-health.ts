import type { Address } from "@solana/kit";
import type { Config } from "../config/load-config";
import type { RailSwitches } from "../config/rail-switches";
import { fetchAccounts, type AccountSnapshot } from "../solana/accounts";
import { decodeUniversalSettleConfig } from "../programs/universal-settle/accounts";
import { findUniversalSettleConfigPda } from "../programs/universal-settle/pda";
import { decodeBank, decodeEscrowConfig } from "../programs/sla-escrow/accounts";
import { findBankPda, findEscrowConfigPda } from "../programs/sla-escrow/pda";

/**
 * /health's view of the on-chain programs this deployment is configured with: is each program deployed (an executable
 * account at the configured id), and is its program-wide state there and readable with our decoders? A wrong or
 * unverified program id shows here as `found: false` or `decoded: false` instead of as failed payments.
 * One batched getMultipleAccounts, cached per isolate for a minute, so /health costs no extra RPC on most calls.
 */
export interface ProgramAccountCheck {
  address: string;
  found: boolean;
  decoded: boolean;
}

export interface ProgramCheck {
  programId: string;
  /** An executable account exists at the id. */
  found: boolean;
  accounts: Record<string, ProgramAccountCheck>;
}

export interface ProgramsHealth {
  /** Every configured program found and every one of its accounts decoded; null when the chain could not be read. */
  ok: boolean | null;
  /** Null when not configured (see `rails.exactVault`) or when the chain could not be read. */
  universalSettle: ProgramCheck | null;
  slaEscrow: ProgramCheck | null;
  /** Which rails the configuration runs, and why the others do not (src/config/rail-switches.ts). */
  rails: RailSwitches;
}

const PROGRAMS_HEALTH_CACHE_MS = 60_000;
/** Settled answers only: a read in flight belongs to the request that started it (src/cache/share-once-fulfilled.ts). */
const cache = new Map<string, { value: ProgramsHealth; expiresAtMs: number }>();

export async function readProgramsHealth(config: Config): Promise<ProgramsHealth> {
  const key = `${config.rpcUrl}|${config.programs.universalSettle}|${config.programs.slaEscrow}`;
  const hit = cache.get(key);
  if (hit && hit.expiresAtMs > Date.now()) return hit.value;
  let value: ProgramsHealth;
  try {
    value = await readOnce(config);
  } catch {
    // A failed read is answered (ok: null) but not kept: the next /health reads again.
    return { ok: null, universalSettle: null, slaEscrow: null, rails: config.rails };
  }
  cache.set(key, { value, expiresAtMs: Date.now() + PROGRAMS_HEALTH_CACHE_MS });
  return value;
}

async function readOnce(config: Config): Promise<ProgramsHealth> {
  const { universalSettle, slaEscrow } = config.programs;
  const [settleConfig, [bank], [escrowConfig]] = await Promise.all([
    universalSettle ? findUniversalSettleConfigPda(universalSettle).then(([pda]) => pda) : null,
    findBankPda(slaEscrow),
    findEscrowConfigPda(slaEscrow),
  ]);
  const settleAccounts = universalSettle && settleConfig ? [universalSettle, settleConfig] : [];
  const accounts = await fetchAccounts(config, [...settleAccounts, slaEscrow, bank, escrowConfig]);
  const check = (address: Address, owner: Address, decode: (data: Uint8Array) => unknown): ProgramAccountCheck => {
    const account = accounts.get(address) ?? null;
    const owned = account !== null && account.owner === owner;
    return { address, found: owned, decoded: owned && decode(account.data) !== null };
  };
  const program = (programId: Address, checks: Record<string, ProgramAccountCheck>): ProgramCheck => ({
    programId,
    found: isExecutable(accounts.get(programId) ?? null),
    accounts: checks,
  });
  const settle = universalSettle && settleConfig ? program(universalSettle, { config: check(settleConfig, universalSettle, decodeUniversalSettleConfig) }) : null;
  const escrow = program(slaEscrow, {
    bank: check(bank, slaEscrow, decodeBank),
    config: check(escrowConfig, slaEscrow, decodeEscrowConfig),
  });
  const ok = [settle, escrow].every((p) => p === null || (p.found && Object.values(p.accounts).every((a) => a.decoded)));
  return { ok, universalSettle: settle, slaEscrow: escrow, rails: config.rails };
}

function isExecutable(account: AccountSnapshot | null): boolean {
  return account !== null && account.executable;
}
