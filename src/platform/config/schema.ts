import * as v from "valibot";
import {
  boolean,
  httpUrl,
  integer,
  mintList,
  mintThresholdMap,
  optionalAddress,
  trimmed,
  u64,
  wsOrHttpUrl,
} from "./fields";
import { WORKERS_PLANS } from "./workers-plan";

/**
 * The core's configuration keys, their validation and their defaults; each rail declares its own keys in
 * `rails/<scheme>/config.ts`, and load-config.ts reads the core's and the rails' together. Keys are the names of the
 * env vars (and of the D1 `parameters` rows that override them).
 */
export const CoreConfigInputSchema = v.object({
  /**
   * Required, no default: a deployment that forgot it must not run as "local" (loopback probes, the demo oracle).
   * `npm start`, `npm run dev` and the tests pass "local" themselves (scripts/lib/local-vars.ts).
   */
  ENVIRONMENT: v.picklist(
    ["local", "preview", "production"],
    'is required and must be "local", "preview" or "production"',
  ),
  SOLANA_CLUSTER: v.optional(v.picklist(["devnet", "mainnet"], 'must be "devnet" or "mainnet"'), "devnet"),
  SOLANA_RPC_URL: httpUrl,
  /** RPC URL advertised to wallets in /health; defaults to SOLANA_RPC_URL. Credentials are always redacted. */
  SOLANA_WALLET_RPC_URL: v.optional(v.union([v.literal(""), httpUrl]), ""),
  SVC_RPC_TIMEOUT_MS: integer(100, 60_000, 8_000),
  /**
   * The cluster's PubSub (WebSocket) endpoint, ws(s):// or http(s)://; empty = the RPC URL's host (providers serve both
   * there).
   */
  SOLANA_WS_URL: v.optional(v.union([v.literal(""), wsOrHttpUrl]), ""),
  /** How /settle learns of a confirmation: a signatureSubscribe opened before the send, or status polling only. */
  SVC_SETTLE_CONFIRMATION: v.optional(v.picklist(["subscribe", "poll"], 'must be "subscribe" or "poll"'), "subscribe"),
  /** Where the exactly-once settle ledger lives: Durable Objects of the place that settles, or D1 (docs/scale.md). */
  SVC_SETTLE_LEDGER: v.optional(v.picklist(["object", "d1"], 'must be "object" or "d1"'), "object"),
  // Mints: empty means "the cluster default" (src/platform/config/networks.ts); each rail's program id is its slice's.
  USDC_MINT: optionalAddress,
  USDT_MINT: optionalAddress,
  FEE_PAYER_SECRET_KEY: v.pipe(
    v.string("is required (a Worker secret)"),
    v.minLength(1, "is required (a Worker secret)"),
  ),
  SVC_OPERATOR_TOKEN: v.optional(v.string(), ""),
  // Deprecated: SVC_OPERATOR_TOKEN's former name, read when SVC_OPERATOR_TOKEN is unset (docs/configuration.md).
  SVC_SWEEP_CRON_TOKEN: v.optional(v.string(), ""),
  CHALLENGE_MAC_KEY: v.optional(v.string(), ""),
  SVC_ALLOWED_PAYMENT_MINTS: mintList,
  SVC_MAX_COMPUTE_UNIT_LIMIT: integer(1_000, 1_400_000, 200_000),
  SVC_MAX_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: integer(0, 10_000_000, 50_000),
  SVC_RECOMMENDED_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS: integer(0, 10_000_000, 1),
  SVC_MAX_REQUEST_BODY_BYTES: integer(1_024, 1_048_576, 65_536),
  /** Off only for load tests: the limits themselves are the [[ratelimits]] bindings in wrangler.toml. */
  SVC_RATE_LIMITS_ENABLED: boolean(true),
  SVC_SETTLE_CONFIRM_TIMEOUT_MS: integer(1_000, 120_000, 20_000),
  SVC_CHALLENGE_TTL_SECONDS: integer(1, 3_600, 600),
  /** Days a settle attempt row (the seller's payment history) is kept before the scheduled purge. */
  SVC_ATTEMPT_RETENTION_DAYS: integer(1, 3_650, 90),
  /**
   * Days a keeper's finished row (closed, dropped, stuck; store/keeper-queue.ts, every keeper's table) is kept before
   * the scheduled purge. Its name is from when the escrow keeper was the only one.
   */
  SVC_ESCROW_WATCH_RETENTION_DAYS: integer(1, 3_650, 30),
  /**
   * JSON map mint → smallest payment (raw units) verify and settle accept; unlisted mints use the program's minimum
   * fee.
   */
  SVC_MIN_PAYMENT_RAW_BY_MINT: mintThresholdMap,
  /**
   * Below this fee payer balance /health says "degraded" and the optional spenders stop (sweeps, keeper payouts,
   * just-in-time vaults).
   */
  SVC_FEE_PAYER_MIN_LAMPORTS: u64(100_000_000n),
  /** Below this fee payer balance settles answer 503 (it must not exceed SVC_FEE_PAYER_MIN_LAMPORTS). */
  SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS: u64(10_000_000n),
  /** Rent the fee payer may have out (fronted, expected back) for one buyer wallet, every rail together. */
  SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS: u64(50_000_000n),
  /** Rent the fee payer may have out for one payTo (seller), every rail together. */
  SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS: u64(500_000_000n),
  /** All the rent the fee payer may have out, in basis points of its current balance. */
  SVC_FEE_PAYER_MAX_RENT_SHARE_BPS: integer(0, 10_000, 5_000),
  /**
   * The operator's jobs' pool: lamports the fee payer may spend for good in a rolling 24 h on its own work (sweeps,
   * keeper steps, just-in-time vaults, payout token accounts). No buyer's payment counts here, so buyer traffic can
   * never stop a job.
   */
  SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: u64(1_000_000_000n),
  /**
   * The strangers' pool: lamports every payment to a seller that has not proven who it is may cost the fee payer in a
   * rolling 24 h, all together (network fees, base and priority, and sponsored fundings).
   */
  SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS: u64(1_000_000_000n),
  /**
   * What one buyer wallet's payments may cost the fee payer in a rolling 24 h (a thousand payments at the highest fee
   * fit).
   */
  SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS: u64(30_000_000n),
  /** What payments to one payTo (seller) that has not proven who it is may cost the fee payer in a rolling 24 h. */
  SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS: u64(50_000_000n),
  /**
   * A proven seller's own quota: what payments to it may cost the fee payer in a rolling 24 h, out of no stranger's
   * pool.
   */
  SVC_FEE_PAYER_MAX_SPEND_PER_PROVEN_SELLER_PER_DAY_LAMPORTS: u64(500_000_000n),
  /** What payments to every proven seller together may cost the fee payer in a rolling 24 h. */
  SVC_FEE_PAYER_MAX_PROVEN_SELLERS_SPEND_PER_DAY_LAMPORTS: u64(2_000_000_000n),
  /**
   * Payments of one buyer wallet whose fee the fee payer paid and that failed on chain, in a rolling 24 h; then it is
   * refused.
   */
  SVC_FEE_PAYER_MAX_FAILURES_PER_PAYER_PER_DAY: integer(0, 1_000_000, 3),
  /**
   * Payments of one buyer wallet that may be claimed and unresolved at once before the others count toward its failure
   * cap: a burst that all fails costs the fee payer at most the cap plus this many fees.
   */
  SVC_FEE_PAYER_IN_FLIGHT_PAYMENTS_PER_PAYER: integer(0, 10_000, 16),
  /**
   * Resource probe may reach loopback (a seller on the same machine). Empty = on in local, off elsewhere; never on
   * outside local.
   */
  SVC_PROBE_ALLOW_LOOPBACK: v.optional(
    v.pipe(
      trimmed,
      v.toLowerCase(),
      v.picklist(["", "true", "false", "1", "0", "yes", "no"], "must be true/false, 1/0 or yes/no"),
    ),
    "",
  ),
  /** Consecutive failed probes after which a resource drops out of listings (until a probe passes again). */
  SVC_PROBE_MAX_FAILURES: integer(1, 100, 3),
  /** Live (not retired) resources one wallet may register; each is one probe subrequest per probe cycle. */
  SVC_MAX_RESOURCES_PER_WALLET: integer(1, 10_000, 100),
  /** Resources the probe cron re-probes per run (each is one subrequest; see src/directory/resources/probe-run.ts). */
  SVC_PROBE_CRON_BATCH_LIMIT: integer(1, 900, 400),
  /**
   * The Cloudflare Workers plan: "free" runs one job per Cron invocation within 50 subrequests
   * (src/platform/config/workers-plan.ts).
   */
  SVC_WORKERS_PLAN: v.optional(v.picklist(WORKERS_PLANS, 'must be "paid" or "free"'), "paid"),
});

export type CoreConfigInput = v.InferOutput<typeof CoreConfigInputSchema>;

/**
 * Core keys only ever read from the Worker's own env (secrets, and the environment that decides what is allowed), never
 * from the database.
 */
export const CORE_ENV_ONLY_KEYS = ["FEE_PAYER_SECRET_KEY", "CHALLENGE_MAC_KEY", "ENVIRONMENT"] as const;

/** Core keys that are Worker secrets: the D1 `parameters` table may override them but they are never echoed. */
export const CORE_SECRET_KEYS = [
  "FEE_PAYER_SECRET_KEY",
  "SVC_OPERATOR_TOKEN",
  "SVC_SWEEP_CRON_TOKEN",
  "CHALLENGE_MAC_KEY",
] as const;
