import { type Address, address, type KeyPairSigner } from "@solana/kit";
import * as v from "valibot";
import type { Env } from "../../env";
import { readParameters } from "../../store/parameters";
import type { RailRentRows } from "../../store/rail-rent-rows";
import { FacilitatorError } from "../errors/catalogue";
import { log } from "../observability/log";
import { readableIssueMessage } from "../validation/issue-message";
import { ConfigError } from "./config-error";
import { parseFeePayerSecretKey } from "./fee-payer-key";
import { CLUSTERS, type ClusterName } from "./networks";
import type { AnyRailConfigSlice, ConfigRails, RailConfigContext, RailConfigMembers } from "./rail-config";
import { CORE_ENV_ONLY_KEYS, CORE_SECRET_KEYS, type CoreConfigInput, CoreConfigInputSchema } from "./schema";
import type { WorkersPlan } from "./workers-plan";

/**
 * How long one isolate trusts a loaded config before re-reading the D1 `parameters` table (docs/facilitator-spec.md §8:
 * ~60 s).
 */
export const CONFIG_CACHE_SECONDS = 60;

export { ConfigError } from "./config-error";

/**
 * What a rails list's configuration is: every key with its validation and default, the core's (schema.ts) then each
 * rail's slice (`RailModule.config`, `rails/<scheme>/config.ts`) in list order; keys are the names of the env vars and
 * of the D1 `parameters` rows that override them. The Worker's is the registry's (`configOf(RAILS)` in
 * rails/registry.ts); the app and the scheduled handler build theirs from the rails they are given.
 */
export interface ConfigOfRails {
  inputSchema: v.ObjectSchema<v.ObjectEntries, undefined>;
  keys: readonly string[];
  /**
   * Keys that only ever come from the Worker's own env (secrets, and the environment that decides what is allowed),
   * never from the database.
   */
  envOnlyKeys: ReadonlySet<string>;
  /** Keys that are Worker secrets: the D1 `parameters` table may override them but they are never echoed. */
  secretKeys: ReadonlySet<string>;
  slices: readonly AnyRailConfigSlice[];
  /** The rails' rent rows (`RailModule.exposure.rentRows`), in list order: `Config.railRentRows`. */
  railRentRows: readonly RailRentRows[];
  /** Validates env and D1 parameters into a `Config`, uncached. */
  load(env: Env): Promise<Config>;
  /** The validated config for this request, cached per isolate (`getConfigOf` below). */
  get(env: Env): Promise<Config>;
}

const configsOfRails = new WeakMap<ConfigRails, ConfigOfRails>();

/** The configuration of `rails` (built once per list). */
export function configOf(rails: ConfigRails): ConfigOfRails {
  const known = configsOfRails.get(rails);
  if (known) return known;
  const slices = rails.flatMap((rail) => (rail.config ? [rail.config] : []));
  const inputSchema = v.object(
    Object.assign({ ...CoreConfigInputSchema.entries }, ...slices.map((slice) => slice.keys)),
  );
  const shape: ConfigOfRails = {
    inputSchema,
    keys: Object.keys(inputSchema.entries),
    envOnlyKeys: new Set<string>([...CORE_ENV_ONLY_KEYS, ...slices.flatMap((slice) => slice.envOnlyKeys ?? [])]),
    secretKeys: new Set<string>([...CORE_SECRET_KEYS, ...slices.flatMap((slice) => slice.secretKeys ?? [])]),
    slices,
    railRentRows: rails.flatMap((rail) => (rail.exposure?.rentRows ? [rail.exposure.rentRows] : [])),
    load: (env) => loadConfigOf(shape, env),
    get: (env) => getConfigOf(shape, env),
  };
  configsOfRails.set(rails, shape);
  return shape;
}

/**
 * The validated configuration: the core's members and those each rail's `config.ts` declares
 * (`RailConfigMembersByRail`).
 */
export type Config = CoreConfig & RailConfigMembers;

export interface CoreConfig {
  environment: "local" | "preview" | "production";
  cluster: ClusterName;
  /** CAIP-2 network id, e.g. `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`. */
  network: string;
  rpcUrl: string;
  walletRpcUrl: string;
  rpcTimeoutMs: number;
  /**
   * PubSub endpoint in the http(s) form a Worker's fetch upgrades to a WebSocket (may carry credentials: never shown).
   */
  pubsubUrl: string;
  settleConfirmation: "subscribe" | "poll";
  /** Where the settle ledger lives (src/settlement/settle-ports.ts `settleLedgerOf`). */
  settleLedger: "object" | "d1";
  /** Bounds the subrequests of each job run (src/platform/config/workers-plan.ts). */
  workersPlan: WorkersPlan;
  mints: { usdc: Address; usdt: Address | null };
  feePayer: KeyPairSigner;
  /**
   * The fee payer's balance floors (lamports): below `minLamports` optional spending stops, below `settleFloorLamports`
   * settles too.
   */
  feePayerFloors: { minLamports: bigint; settleFloorLamports: bigint };
  /** The operator routes' bearer token: SVC_OPERATOR_TOKEN, else its deprecated former name SVC_SWEEP_CRON_TOKEN. */
  operatorToken: string | null;
  challengeMacKey: string | null;
  /** Empty = every mint is permitted (docs/facilitator-spec.md §8). */
  allowedPaymentMints: Address[];
  compute: { maxUnitLimit: number; maxUnitPriceMicroLamports: bigint; recommendedUnitPriceMicroLamports: bigint };
  limits: {
    maxRequestBodyBytes: number;
    rateLimitsEnabled: boolean;
    attemptRetentionDays: number;
    /** Days a keeper's finished row is kept (every keeper's table, store/keeper-queue.ts). */
    keeperRowRetentionDays: number;
    settleConfirmTimeoutMs: number;
    challengeTtlSeconds: number;
    /** Operator minimums per mint (raw units); the program's minimum fee applies to unlisted mints. */
    minPaymentRawByMint: Record<string, bigint>;
  };
  probe: {
    allowLoopback: boolean;
    maxConsecutiveFailures: number;
    cronBatchLimit: number;
    maxResourcesPerWallet: number;
  };
  /** Caps on what the fee payer fronts beyond sellers' network fees (src/chain/fee-payer-budget/). */
  feePayerBudget: FeePayerBudgetCaps;
  /**
   * Where the rails keep rent the fee payer fronted on their own rows (each rail's `exposure.rentRows`): every held
   * booking's caps count them, whichever rail or job books.
   */
  railRentRows: readonly RailRentRows[];
}

/** The operator's caps of the exposure budget (SVC_FEE_PAYER_MAX_*, docs/money-rules.md); a rail's: its slice. */
export interface FeePayerBudgetCaps {
  rentPerPayerLamports: bigint;
  rentPerPayToLamports: bigint;
  /** All rent out, in basis points of the fee payer's current balance. */
  rentShareBps: number;
  /** The operator's jobs' daily pool (SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS). */
  spendPerDayLamports: bigint;
  /** The strangers' daily pool: payments to sellers that have not proven who they are. */
  buyerSpendPerDayLamports: bigint;
  spendPerPayerPerDayLamports: bigint;
  spendPerPayToPerDayLamports: bigint;
  /** Each proven seller's own daily quota, and all of theirs together. */
  provenSellerSpendPerDayLamports: bigint;
  provenSellersSpendPerDayLamports: bigint;
  /** A buyer's payments that failed on chain at the fee payer's cost, per rolling 24 h. */
  failuresPerPayerPerDay: number;
  /** A buyer's payments that may be unresolved at once before the others count toward its failure cap. */
  inFlightPaymentsPerPayer: number;
}

interface CacheEntry {
  /**
   * Always settled: a load in flight reads D1 for the request that started it
   * (src/platform/cache/share-once-fulfilled.ts).
   */
  result: Promise<Config>;
  expiresAtMs: number;
}
/** Per rails list, per env binding. */
let cache = new WeakMap<ConfigOfRails, WeakMap<object, CacheEntry>>();

/**
 * The validated config for this request: env vars overlaid with D1 parameters, cached per isolate once loaded.
 * Requests that miss at the same time each load it (one D1 read each) rather than wait on another's load.
 */
function getConfigOf(of: ConfigOfRails, env: Env): Promise<Config> {
  let entries = cache.get(of); // a load that settles after clearConfigCache() stays out of the new cache
  if (!entries) {
    entries = new WeakMap();
    cache.set(of, entries);
  }
  const hit = entries.get(env);
  if (hit && hit.expiresAtMs > Date.now()) return hit.result;
  const result = loadConfigOf(of, env);
  result.then(
    () => entries.set(env, { result, expiresAtMs: Date.now() + CONFIG_CACHE_SECONDS * 1000 }),
    // A failed load is retried sooner than a good one is refreshed, so a fixed parameter shows quickly.
    () => entries.set(env, { result, expiresAtMs: Date.now() + 5_000 }),
  );
  return result;
}

/** Drops every cached config (an operator or a test changed parameters and wants them seen at once). */
export function clearConfigCache(): void {
  cache = new WeakMap();
}

/** The last parameters read successfully, per database binding: a failed read must not silently revert to env. */
const lastGoodParameters = new WeakMap<object, Map<string, string>>();

/**
 * D1 parameters override env values (a cap of 0 set by the operator must stay 0). When the read fails, the last
 * good set is used; with none, the configuration fails closed (503) rather than running on env defaults.
 */
async function readParametersOrLastGood(d1: D1Database): Promise<Map<string, string>> {
  try {
    const parameters = await readParameters(d1);
    lastGoodParameters.set(d1, parameters);
    return parameters;
  } catch (error) {
    const lastGood = lastGoodParameters.get(d1);
    log("error", "config_parameters_unreadable", { usingLastGood: lastGood !== undefined, error });
    if (lastGood) return lastGood;
    throw new FacilitatorError(
      "SERVICE_UNAVAILABLE",
      "Configuration parameters could not be read from the database; try again shortly",
    );
  }
}

async function loadConfigOf(of: ConfigOfRails, env: Env): Promise<Config> {
  const raw: Record<string, unknown> = {};
  for (const key of of.keys) {
    const value = env[key];
    if (typeof value === "string") raw[key] = value;
    else if (typeof value === "number" || typeof value === "boolean") raw[key] = String(value);
  }
  const overrides = await readParametersOrLastGood(env.DB);
  for (const [key, value] of overrides) {
    if (of.keys.includes(key) && !of.envOnlyKeys.has(key)) raw[key] = value;
  }

  const parsed = v.safeParse(of.inputSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue.path?.[0]?.key;
    throw new ConfigError(typeof key === "string" ? key : "configuration", readableIssueMessage(issue));
  }
  const input = parsed.output as CoreConfigInput;
  const cluster = CLUSTERS[input.SOLANA_CLUSTER];

  let feePayer: KeyPairSigner;
  try {
    feePayer = await parseFeePayerSecretKey(input.FEE_PAYER_SECRET_KEY);
  } catch (error) {
    throw new ConfigError("FEE_PAYER_SECRET_KEY", (error as Error).message);
  }

  const usdt = input.USDT_MINT || cluster.usdtMint;
  const allowLoopback = resolveProbeLoopback(input.SVC_PROBE_ALLOW_LOOPBACK, input.ENVIRONMENT);
  // Each rail reads its own slice, in list order (a slice's refusal names its key).
  const context: RailConfigContext = {
    environment: input.ENVIRONMENT,
    cluster: input.SOLANA_CLUSTER,
    feePayer,
  };
  const railMembers: object[] = [];
  for (const slice of of.slices) railMembers.push(await slice.read(parsed.output as never, context));
  if (input.SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS > input.SVC_FEE_PAYER_MIN_LAMPORTS) {
    throw new ConfigError(
      "SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS",
      `must not exceed SVC_FEE_PAYER_MIN_LAMPORTS (${input.SVC_FEE_PAYER_MIN_LAMPORTS})`,
    );
  }
  const core: CoreConfig = {
    environment: input.ENVIRONMENT,
    cluster: input.SOLANA_CLUSTER,
    network: cluster.network,
    rpcUrl: input.SOLANA_RPC_URL,
    // The private RPC URL may carry credentials in places no redaction can recognise: unless an operator chose a
    // URL for wallets explicitly, only its origin is ever shown.
    walletRpcUrl: input.SOLANA_WALLET_RPC_URL || new URL(input.SOLANA_RPC_URL).origin,
    rpcTimeoutMs: input.SVC_RPC_TIMEOUT_MS,
    pubsubUrl: (input.SOLANA_WS_URL || input.SOLANA_RPC_URL).replace(/^ws(s?):\/\//i, "http$1://"),
    settleConfirmation: input.SVC_SETTLE_CONFIRMATION,
    settleLedger: input.SVC_SETTLE_LEDGER,
    workersPlan: input.SVC_WORKERS_PLAN,
    mints: { usdc: address(input.USDC_MINT || cluster.usdcMint), usdt: usdt ? address(usdt) : null },
    feePayer,
    feePayerFloors: {
      minLamports: input.SVC_FEE_PAYER_MIN_LAMPORTS,
      settleFloorLamports: input.SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS,
    },
    operatorToken: input.SVC_OPERATOR_TOKEN || input.SVC_SWEEP_CRON_TOKEN || null,
    challengeMacKey: input.CHALLENGE_MAC_KEY || null,
    allowedPaymentMints: input.SVC_ALLOWED_PAYMENT_MINTS.map((m) => address(m)),
    compute: {
      maxUnitLimit: input.SVC_MAX_COMPUTE_UNIT_LIMIT,
      maxUnitPriceMicroLamports: BigInt(input.SVC_MAX_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS),
      recommendedUnitPriceMicroLamports: BigInt(input.SVC_RECOMMENDED_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS),
    },
    limits: {
      maxRequestBodyBytes: input.SVC_MAX_REQUEST_BODY_BYTES,
      rateLimitsEnabled: input.SVC_RATE_LIMITS_ENABLED,
      attemptRetentionDays: input.SVC_ATTEMPT_RETENTION_DAYS,
      keeperRowRetentionDays: input.SVC_ESCROW_WATCH_RETENTION_DAYS,
      settleConfirmTimeoutMs: input.SVC_SETTLE_CONFIRM_TIMEOUT_MS,
      challengeTtlSeconds: input.SVC_CHALLENGE_TTL_SECONDS,
      minPaymentRawByMint: input.SVC_MIN_PAYMENT_RAW_BY_MINT,
    },
    probe: {
      allowLoopback,
      maxConsecutiveFailures: input.SVC_PROBE_MAX_FAILURES,
      cronBatchLimit: input.SVC_PROBE_CRON_BATCH_LIMIT,
      maxResourcesPerWallet: input.SVC_MAX_RESOURCES_PER_WALLET,
    },
    feePayerBudget: {
      rentPerPayerLamports: input.SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS,
      rentPerPayToLamports: input.SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS,
      rentShareBps: input.SVC_FEE_PAYER_MAX_RENT_SHARE_BPS,
      spendPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS,
      buyerSpendPerDayLamports: input.SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS,
      spendPerPayerPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS,
      spendPerPayToPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS,
      provenSellerSpendPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_PROVEN_SELLER_PER_DAY_LAMPORTS,
      provenSellersSpendPerDayLamports: input.SVC_FEE_PAYER_MAX_PROVEN_SELLERS_SPEND_PER_DAY_LAMPORTS,
      failuresPerPayerPerDay: input.SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY,
      inFlightPaymentsPerPayer: input.SVC_FEE_PAYER_IN_FLIGHT_PAYMENTS_PER_PAYER,
    },
    railRentRows: of.railRentRows,
  };
  return railMembers.reduce<Record<string, unknown>>(withMembers, { ...core }) as unknown as Config;
}

/**
 * A rail slice's members added to the configuration: a member object the configuration already has gains its fields.
 */
function withMembers(config: Record<string, unknown>, members: object): Record<string, unknown> {
  for (const [key, value] of Object.entries(members)) {
    const existing = config[key];
    config[key] = isPlainObject(existing) && isPlainObject(value) ? { ...existing, ...value } : value;
  }
  return config;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Loopback probing exists for `npm start` only: on by default locally, a config error anywhere else. */
function resolveProbeLoopback(raw: string, environment: Config["environment"]): boolean {
  if (raw === "") return environment === "local";
  const on = raw === "true" || raw === "1" || raw === "yes";
  if (on && environment !== "local") {
    throw new ConfigError(
      "SVC_PROBE_ALLOW_LOOPBACK",
      `may only be enabled when ENVIRONMENT is "local" (it is "${environment}")`,
    );
  }
  return on;
}
