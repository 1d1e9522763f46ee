import { type AccountSnapshot, fetchAccounts } from "../../chain/accounts";
import { endpointCache } from "../../chain/endpoint-cache";
import type { Config } from "../../platform/config/load-config";
import type { ProgramAccountProbe, RailHealth, RailModule } from "../../rails/rail";

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

/** Per rail program (its `RailHealth.program.key`), and whether all of them are there and readable. */
export interface ProgramsHealth {
  /** Every configured program found and every one of its accounts decoded; null when the chain could not be read. */
  ok: boolean | null;
  /** Which rails the configuration runs, and why the others do not (platform/config/rail-switches.ts). */
  rails: Config["rails"];
  /** Null when the rail's program is not configured (see `rails`) or the chain could not be read. */
  [program: string]: ProgramCheck | boolean | null | Config["rails"];
}

const PROGRAMS_HEALTH_CACHE_MS = 60_000;
const cache = endpointCache<ProgramsHealth>(PROGRAMS_HEALTH_CACHE_MS);

type ProgramPart = NonNullable<RailHealth["program"]>;

function programParts(rails: readonly RailModule[]): ProgramPart[] {
  return rails.flatMap((rail) => (rail.health?.program ? [rail.health.program] : []));
}

/** A rail's program part with its configured id (null: the rail's program is not configured, see config.rails). */
interface ProgramOf {
  part: ProgramPart;
  programId: ReturnType<ProgramPart["programId"]>;
}

export async function readProgramsHealth(config: Config, rails: readonly RailModule[]): Promise<ProgramsHealth> {
  const parts = programParts(rails);
  // Each id once: the cache key and the read both use it.
  const programs: ProgramOf[] = parts.map((part) => ({ part, programId: part.programId(config) }));
  const key = programs.map(({ programId }) => programId ?? "none");
  const hit = cache.get(config, key);
  if (hit) return hit;
  let value: ProgramsHealth;
  try {
    value = await readOnce(config, programs);
  } catch {
    // A failed read is answered (ok: null) but not kept: the next /health reads again.
    return { ok: null, ...Object.fromEntries(parts.map((part) => [part.key, null])), rails: config.rails };
  }
  cache.set(config, key, value);
  return value;
}

async function readOnce(config: Config, programs: readonly ProgramOf[]): Promise<ProgramsHealth> {
  // A rail whose program id is not configured is off (config.rails): nothing to read, null in the report.
  const configured = programs.flatMap(({ part, programId }) => (programId ? [{ part, programId }] : []));
  const probes = await Promise.all(configured.map(({ part }) => part.accounts(config)));
  // One batched read: each program, then its accounts.
  const accounts = await fetchAccounts(
    config,
    configured.flatMap(({ programId }, i) => [programId, ...Object.values(probes[i]!).map((probe) => probe.address)]),
  );
  const checks = configured.map(({ part, programId }, i): [string, ProgramCheck] => {
    const check = ({ address, decode }: ProgramAccountProbe): ProgramAccountCheck => {
      const account = accounts.get(address) ?? null;
      const owned = account !== null && account.owner === programId;
      return { address, found: owned, decoded: owned && decode(account.data) !== null };
    };
    return [
      part.key,
      {
        programId,
        found: isExecutable(accounts.get(programId) ?? null),
        accounts: Object.fromEntries(Object.entries(probes[i]!).map(([name, probe]) => [name, check(probe)])),
      },
    ];
  });
  const ok = checks.every(([, p]) => p.found && Object.values(p.accounts).every((a) => a.decoded));
  const byKey = new Map(checks);
  return {
    ok,
    ...Object.fromEntries(programs.map(({ part }) => [part.key, byKey.get(part.key) ?? null])),
    rails: config.rails,
  };
}

function isExecutable(account: AccountSnapshot | null): boolean {
  return account?.executable === true;
}
