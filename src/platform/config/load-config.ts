import * as v from "valibot";
import { log } from "../observability/log";
import { address, type Address, type KeyPairSigner } from "@solana/kit";
import { CLUSTERS, type ClusterName } from "./networks";
import { ConfigInputSchema, CONFIG_KEYS, type ConfigInput } from "./schema";
import { PUBLICLY_DERIVED_KEYS } from "./local-demo-keys";
import { parseFeePayerSecretKey } from "./fee-payer-key";
import type { OracleProfileConfig } from "./oracle-profiles";
import { FacilitatorError } from "../errors/catalogue";
import { readParameters } from "../../store/parameters";
import { readableIssueMessage } from "../validation/issue-message";
import type { Env } from "../../env";
import type { WorkersPlan } from "./workers-plan";
import { railSwitches, type RailSwitches } from "./rail-switches";

/** How long one isolate trusts a loaded config before re-reading the D1 `parameters` table (docs/facilitator-spec.md §8: ~60 s). */
export const CONFIG_CACHE_SECONDS = 60;

/** Keys that only ever come from the Worker's own env (secrets, and the environment that decides what is allowed), never from the database. */
const ENV_ONLY_KEYS = new Set(["FEE_PAYER_SECRET_KEY", "CHALLENGE_MAC_KEY", "ENVIRONMENT", "SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", "SVC_UPTO_DELEGATED_SETTLE_TOKEN"]);

export interface Config {
  environment: "local" | "preview" | "production";
  cluster: ClusterName;
  /** CAIP-2 network id, e.g. `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`. */
  network: string;
  rpcUrl: string;
  walletRpcUrl: string;
  rpcTimeoutMs: number;
  /** PubSub endpoint in the http(s) form a Worker's fetch upgrades to a WebSocket (may carry credentials: never shown). */
  pubsubUrl: string;
  settleConfirmation: "subscribe" | "poll";
  /** Where the settle ledger lives (src/settlement/settle-ports.ts `settleLedgerOf`). */
  settleLedger: "object" | "d1";
  /** Bounds the subrequests of each job run (src/platform/config/workers-plan.ts). */
  workersPlan: WorkersPlan;
  /** `universalSettle` is null where none is configured: the vault form of `exact` is then off (`rails`). */
  programs: { universalSettle: Address | null; slaEscrow: Address; paymentChannels: Address };
  /** Which rails (and `exact` payTo forms) run here, and why the others do not (src/platform/config/rail-switches.ts). */
  rails: RailSwitches;
  mints: { usdc: Address; usdt: Address | null };
  feePayer: KeyPairSigner;
  /** The fee payer's balance floors (lamports): below `minLamports` optional spending stops, below `settleFloorLamports` settles too. */
  feePayerFloors: { minLamports: bigint; settleFloorLamports: bigint };
  sweepToken: string | null;
  challengeMacKey: string | null;
  /** Empty = every mint is permitted (docs/facilitator-spec.md §8). */
  allowedPaymentMints: Address[];
  compute: { maxUnitLimit: number; maxUnitPriceMicroLamports: bigint; recommendedUnitPriceMicroLamports: bigint };
  limits: {
    maxRequestBodyBytes: number;
    rateLimitsEnabled: boolean;
    attemptRetentionDays: number;
    /** Smallest payment per mint for which a vault is fronted; the program's recovery target applies to unlisted mints. */
    jitMinPaymentRawByMint: Record<string, bigint>;
    settleConfirmTimeoutMs: number;
    challengeTtlSeconds: number;
    jitProvisioningDailyCap: number;
    /** Operator minimums per mint (raw units); the program's minimum fee applies to unlisted mints. */
    minPaymentRawByMint: Record<string, bigint>;
  };
  sweep: {
    cooldownSeconds: number;
    recentSettleWindowSeconds: number;
    batchLimit: number;
    minSpendableLamports: bigint;
    minSplRawDefault: bigint;
    minSplRawByMint: Record<string, bigint>;
  };
  slaEscrow: {
    allowFacilitatorFeeSponsorship: boolean;
    sponsoredFailuresPerPayer: number;
    watchRetentionDays: number;
    oracleAuthorities: Address[];
    deliveryBudgetSeconds: number;
    oracleProfiles: OracleProfileConfig;
  };
  probe: { allowLoopback: boolean; maxConsecutiveFailures: number; cronBatchLimit: number; maxResourcesPerWallet: number };
  upto: {
    /** Owner of the payment-channels treasury token accounts Distribute pays dust into. */
    treasuryOwner: Address;
    /** Delegated mode: the voucher key and the bearer token its callers present (both or neither). */
    delegated: { authorizer: KeyPairSigner; settleToken: string } | null;
    minWithdrawDelaySeconds: number;
    maxWithdrawDelaySeconds: number;
    maxChannelLifetimeSeconds: number;
    /** Operator minimum ceilings per mint (raw units); other mints: src/rails/upto/mint-screen.ts. */
    minCeilingRawByMint: Record<string, bigint>;
    /** Open-mint mode: freeze authorities an upto mint may have. */
    trustedFreezeAuthorities: Address[];
  };
  /** Caps on what the fee payer fronts beyond sellers' network fees (src/chain/fee-payer-budget/). */
  feePayerBudget: FeePayerBudgetCaps;
}

/** The operator's caps of the exposure budget (keys SVC_FEE_PAYER_MAX_* and SVC_UPTO_MAX_*; docs/money-rules.md). */
export interface FeePayerBudgetCaps {
  rentPerPayerLamports: bigint;
  rentPerPayToLamports: bigint;
  /** All rent out, in basis points of the fee payer's current balance. */
  rentShareBps: number;
  spendPerDayLamports: bigint;
  spendPerPayerPerDayLamports: bigint;
  spendPerPayToPerDayLamports: bigint;
  uptoChannelsPerPayer: number;
  uptoChannelsPerPayTo: number;
  uptoOpensPerPayerPerHour: number;
}

/** A configuration problem: every route answers 500 naming the key (docs/facilitator-spec.md §4.1). */
export class ConfigError extends FacilitatorError {
  constructor(readonly key: string, problem: string) {
    super("CONFIG_INVALID", `Invalid configuration: ${key} ${problem}`);
  }
}

interface CacheEntry {
  /** Always settled: a load in flight reads D1 for the request that started it (src/platform/cache/share-once-fulfilled.ts). */
  result: Promise<Config>;
  expiresAtMs: number;
}
let cache = new WeakMap<object, CacheEntry>();

/**
 * The validated config for this request: env vars overlaid with D1 parameters, cached per isolate once loaded.
 * Requests that miss at the same time each load it (one D1 read each) rather than wait on another's load.
 */
export function getConfig(env: Env): Promise<Config> {
  const hit = cache.get(env);
  if (hit && hit.expiresAtMs > Date.now()) return hit.result;
  const entries = cache; // a load that settles after clearConfigCache() stays out of the new cache
  const result = loadConfig(env);
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
    throw new FacilitatorError("SERVICE_UNAVAILABLE", "Configuration parameters could not be read from the database; try again shortly");
  }
}

export async function loadConfig(env: Env): Promise<Config> {
  const raw: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const value = env[key];
    if (typeof value === "string") raw[key] = value;
    else if (typeof value === "number" || typeof value === "boolean") raw[key] = String(value);
  }
  const overrides = await readParametersOrLastGood(env.DB);
  for (const [key, value] of overrides) {
    if (CONFIG_KEYS.includes(key as (typeof CONFIG_KEYS)[number]) && !ENV_ONLY_KEYS.has(key)) raw[key] = value;
  }

  const parsed = v.safeParse(ConfigInputSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue.path?.[0]?.key;
    throw new ConfigError(typeof key === "string" ? key : "configuration", readableIssueMessage(issue));
  }
  const input = parsed.output;
  const cluster = CLUSTERS[input.SOLANA_CLUSTER];

  let feePayer: KeyPairSigner;
  try {
    feePayer = await parseFeePayerSecretKey(input.FEE_PAYER_SECRET_KEY);
  } catch (error) {
    throw new ConfigError("FEE_PAYER_SECRET_KEY", (error as Error).message);
  }

  const usdt = input.USDT_MINT || cluster.usdtMint;
  const allowLoopback = resolveProbeLoopback(input.SVC_PROBE_ALLOW_LOOPBACK, input.ENVIRONMENT);
  // Absent (no public source confirms one on this cluster): the vault rail is off, everything else serves.
  const universalSettleProgramId = input.UNIVERSAL_SETTLE_PROGRAM_ID || cluster.universalSettleProgramId;
  const universalSettle = universalSettleProgramId ? address(universalSettleProgramId) : null;
  const exactWalletPayTo = input.SVC_EXACT_WALLET_PAYTO === "" ? input.ENVIRONMENT === "local" : ["true", "1", "yes"].includes(input.SVC_EXACT_WALLET_PAYTO);
  if (input.ENVIRONMENT !== "local") refuseLocalDemoKeys(input);
  const delegated = await parseUptoDelegation(input, feePayer);
  if (input.SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS > input.SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS) {
    throw new ConfigError("SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS", `must not exceed SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS (${input.SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS})`);
  }
  if (input.SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS > input.SVC_FEE_PAYER_MIN_LAMPORTS) {
    throw new ConfigError("SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS", `must not exceed SVC_FEE_PAYER_MIN_LAMPORTS (${input.SVC_FEE_PAYER_MIN_LAMPORTS})`);
  }
  return {
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
    rails: railSwitches({ universalSettle, exactWalletPayTo, cluster: input.SOLANA_CLUSTER }),
    programs: {
      universalSettle,
      slaEscrow: address(input.SLA_ESCROW_PROGRAM_ID || cluster.slaEscrowProgramId),
      paymentChannels: address(input.PAYMENT_CHANNELS_PROGRAM_ID || cluster.paymentChannelsProgramId),
    },
    mints: { usdc: address(input.USDC_MINT || cluster.usdcMint), usdt: usdt ? address(usdt) : null },
    feePayer,
    feePayerFloors: { minLamports: input.SVC_FEE_PAYER_MIN_LAMPORTS, settleFloorLamports: input.SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS },
    sweepToken: input.SVC_SWEEP_CRON_TOKEN || null,
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
      jitMinPaymentRawByMint: input.SVC_JIT_MIN_PAYMENT_RAW_BY_MINT,
      settleConfirmTimeoutMs: input.SVC_SETTLE_CONFIRM_TIMEOUT_MS,
      challengeTtlSeconds: input.SVC_CHALLENGE_TTL_SECONDS,
      jitProvisioningDailyCap: input.SVC_JIT_PROVISIONING_DAILY_CAP,
      minPaymentRawByMint: input.SVC_MIN_PAYMENT_RAW_BY_MINT,
    },
    sweep: {
      cooldownSeconds: input.SVC_SWEEP_CRON_COOLDOWN_SEC,
      recentSettleWindowSeconds: input.SVC_SWEEP_CRON_RECENT_SETTLE_WINDOW_SEC,
      batchLimit: input.SVC_SWEEP_CRON_BATCH_LIMIT,
      minSpendableLamports: input.SVC_SWEEP_MIN_SPENDABLE_LAMPORTS,
      minSplRawDefault: input.SVC_SWEEP_MIN_SPL_RAW_DEFAULT
        ? BigInt(input.SVC_SWEEP_MIN_SPL_RAW_DEFAULT)
        : cluster.sweepMinSplRawDefault,
      minSplRawByMint: input.SVC_SWEEP_MIN_SPL_RAW_BY_MINT,
    },
    slaEscrow: {
      allowFacilitatorFeeSponsorship: input.SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP,
      sponsoredFailuresPerPayer: input.SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER,
      watchRetentionDays: input.SVC_ESCROW_WATCH_RETENTION_DAYS,
      oracleAuthorities: input.SVC_SLA_ESCROW_ORACLE_AUTHORITIES.map((key) => address(key)),
      deliveryBudgetSeconds: input.SVC_SLA_ESCROW_DELIVERY_BUDGET_SECONDS,
      oracleProfiles: {
        profiles: input.SVC_SLA_ESCROW_ORACLE_PROFILES_JSON,
        defaultPubkeys: {
          apiQuality: input.SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY || null,
          onchainTransfer: input.SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY || null,
          fileDelivery: input.SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY || null,
        },
      },
    },
    probe: {
      allowLoopback,
      maxConsecutiveFailures: input.SVC_PROBE_MAX_FAILURES,
      cronBatchLimit: input.SVC_PROBE_CRON_BATCH_LIMIT,
      maxResourcesPerWallet: input.SVC_MAX_RESOURCES_PER_WALLET,
    },
    upto: {
      treasuryOwner: address(input.SVC_UPTO_TREASURY_OWNER || cluster.paymentChannelsTreasuryOwner),
      delegated,
      minWithdrawDelaySeconds: input.SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS,
      maxWithdrawDelaySeconds: input.SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS,
      maxChannelLifetimeSeconds: input.SVC_UPTO_MAX_CHANNEL_LIFETIME_SECONDS,
      minCeilingRawByMint: input.SVC_UPTO_MIN_CEILING_RAW_BY_MINT,
      trustedFreezeAuthorities: input.SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES.map((key) => address(key)),
    },
    feePayerBudget: {
      rentPerPayerLamports: input.SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS,
      rentPerPayToLamports: input.SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS,
      rentShareBps: input.SVC_FEE_PAYER_MAX_RENT_SHARE_BPS,
      spendPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS,
      spendPerPayerPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS,
      spendPerPayToPerDayLamports: input.SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS,
      uptoChannelsPerPayer: input.SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER,
      uptoChannelsPerPayTo: input.SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO,
      uptoOpensPerPayerPerHour: input.SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR,
    },
  };
}

/**
 * The `upto` delegated receiver authorizer: a voucher key that is useless without the token that says who may ask it to
 * sign (otherwise a buyer could cancel its own payment with a zero-amount claim), and never the fee payer itself.
 */
async function parseUptoDelegation(input: ConfigInput, feePayer: KeyPairSigner): Promise<Config["upto"]["delegated"]> {
  const secret = input.SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY.trim();
  const settleToken = input.SVC_UPTO_DELEGATED_SETTLE_TOKEN.trim();
  if (secret === "" && settleToken === "") return null;
  if (secret === "") throw new ConfigError("SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", "is required when SVC_UPTO_DELEGATED_SETTLE_TOKEN is set");
  if (settleToken.length < 16) throw new ConfigError("SVC_UPTO_DELEGATED_SETTLE_TOKEN", "is required (at least 16 characters) when SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY is set");
  let authorizer: KeyPairSigner;
  try {
    authorizer = await parseFeePayerSecretKey(secret);
  } catch (error) {
    throw new ConfigError("SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", (error as Error).message);
  }
  if (authorizer.address === feePayer.address) {
    throw new ConfigError("SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", "must not be the fee payer's key (a voucher key signs money out of channels; keep it apart)");
  }
  return { authorizer, settleToken };
}

/** Loopback probing exists for `npm start` only: on by default locally, a config error anywhere else. */
function resolveProbeLoopback(raw: string, environment: Config["environment"]): boolean {
  if (raw === "") return environment === "local";
  const on = raw === "true" || raw === "1" || raw === "yes";
  if (on && environment !== "local") {
    throw new ConfigError("SVC_PROBE_ALLOW_LOOPBACK", `may only be enabled when ENVIRONMENT is "local" (it is "${environment}")`);
  }
  return on;
}

/**
 * The demo oracle's key is derived from a public string (anyone can sign as it): outside "local" it may adjudicate
 * nothing, whichever oracle key names it.
 */
function refuseLocalDemoKeys(input: ConfigInput): void {
  const named: [string, readonly string[]][] = [
    ["SVC_SLA_ESCROW_ORACLE_AUTHORITIES", input.SVC_SLA_ESCROW_ORACLE_AUTHORITIES],
    ["SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY", [input.SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY]],
    ["SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY", [input.SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY]],
    ["SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY", [input.SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY]],
  ];
  for (const [key, values] of named) {
    if (values.some((value) => PUBLICLY_DERIVED_KEYS.has(value))) {
      throw new ConfigError(key, `names the local demo oracle (its key is derived from a public string); it is refused when ENVIRONMENT is "${input.ENVIRONMENT}"`);
    }
  }
}
