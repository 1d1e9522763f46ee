import * as v from "valibot";
import { isAddress } from "@solana/kit";
import { OracleProfilesSchema, type OracleProfile } from "./oracle-profiles";
import { WORKERS_PLANS } from "./workers-plan";

/**
 * Every configuration key, its validation and its default. Keys are the names of the env vars (and of the
 * D1 `parameters` rows that override them). Values arrive as strings (env vars, D1) and are parsed here,
 * so the rest of the service only ever sees typed values.
 */

const trimmed = v.pipe(v.string(), v.trim());

const address = v.pipe(trimmed, v.check((s) => isAddress(s), "must be a base58 Solana address"));

const optionalAddress = v.optional(v.union([v.literal(""), address]), "");

const httpUrl = v.pipe(
  trimmed,
  v.url("must be an http(s) URL"),
  v.check((s) => /^https?:\/\//i.test(s), "must be an http(s) URL"),
);

const wsOrHttpUrl = v.pipe(
  trimmed,
  v.url("must be a ws(s) or http(s) URL"),
  v.check((s) => /^(wss?|https?):\/\//i.test(s), "must be a ws(s) or http(s) URL"),
);

function integer(min: number, max: number, fallback: number) {
  return v.optional(
    v.pipe(
      trimmed,
      v.regex(/^\d+$/, "must be a whole number"),
      v.transform(Number),
      v.minValue(min, `must be at least ${min}`),
      v.maxValue(max, `must be at most ${max}`),
    ),
    String(fallback),
  );
}

function u64(fallback: bigint) {
  return v.optional(
    v.pipe(
      trimmed,
      v.regex(/^\d{1,20}$/, "must be a whole number"),
      v.transform((s) => BigInt(s)),
      v.check((n) => n <= 0xffff_ffff_ffff_ffffn, "must fit in u64"),
    ),
    String(fallback),
  );
}

const boolean = (fallback: boolean) =>
  v.optional(
    v.pipe(
      trimmed,
      v.toLowerCase(),
      v.picklist(["true", "false", "1", "0", "yes", "no", ""], "must be true/false, 1/0 or yes/no"),
      v.transform((s) => s === "true" || s === "1" || s === "yes"),
    ),
    fallback ? "true" : "false",
  );

/** Mint list separated by commas or whitespace (docs/facilitator-spec.md §8 `SVC_ALLOWED_PAYMENT_MINTS`). */
const mintList = v.optional(
  v.pipe(
    v.string(),
    v.transform((s) => s.split(/[\s,]+/).filter((m) => m.length > 0)),
    v.check((list) => list.every((m) => isAddress(m)), "every entry must be a base58 mint address"),
  ),
  "",
);

/** JSON object mapping mint → raw threshold (docs/facilitator-spec.md §8 `SVC_SWEEP_MIN_SPL_RAW_BY_MINT`). */
const mintThresholdMap = v.optional(
  v.pipe(
    trimmed,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (dataset.value === "") return {} as Record<string, bigint>;
      try {
        const parsed: unknown = JSON.parse(dataset.value);
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
        const out: Record<string, bigint> = {};
        for (const [mint, raw] of Object.entries(parsed)) {
          if (!isAddress(mint) || !/^\d{1,20}$/.test(String(raw))) throw new Error(`bad entry ${mint}`);
          out[mint] = BigInt(String(raw));
        }
        return out;
      } catch {
        addIssue({ message: 'must be a JSON object like {"<mint>": "3000000"}' });
        return NEVER;
      }
    }),
  ),
  "",
);

/** `SVC_SLA_ESCROW_ORACLE_PROFILES_JSON`: empty = null (the canonical profiles), else a validated profile array. */
const oracleProfilesJson = v.optional(
  v.pipe(
    trimmed,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (dataset.value === "") return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(dataset.value);
      } catch {
        addIssue({ message: "must be a JSON array of oracle profiles" });
        return NEVER;
      }
      const result = v.safeParse(OracleProfilesSchema, parsed);
      if (!result.success) {
        addIssue({ message: `must be a JSON array of {profileId, normativeSpecUrl, repositoryPath?, defaultOperatorPubkey?, registryUrl?}: ${result.issues[0].message}` });
        return NEVER;
      }
      return result.output as OracleProfile[];
    }),
  ),
  "",
);

export const ConfigInputSchema = v.object({
  /**
   * Required, no default: a deployment that forgot it must not run as "local" (loopback probes, the demo oracle).
   * `npm start`, `npm run dev` and the tests pass "local" themselves (scripts/lib/local-vars.ts).
   */
  ENVIRONMENT: v.picklist(["local", "preview", "production"], 'is required and must be "local", "preview" or "production"'),
  SOLANA_CLUSTER: v.optional(v.picklist(["devnet", "mainnet"], 'must be "devnet" or "mainnet"'), "devnet"),
  SOLANA_RPC_URL: httpUrl,
  /** RPC URL advertised to wallets in /health; defaults to SOLANA_RPC_URL. Credentials are always redacted. */
  SOLANA_WALLET_RPC_URL: v.optional(v.union([v.literal(""), httpUrl]), ""),
  SVC_RPC_TIMEOUT_MS: integer(100, 60_000, 8_000),
  /** The cluster's PubSub (WebSocket) endpoint, ws(s):// or http(s)://; empty = the RPC URL's host (providers serve both there). */
  SOLANA_WS_URL: v.optional(v.union([v.literal(""), wsOrHttpUrl]), ""),
  /** How /settle learns of a confirmation: a signatureSubscribe opened before the send, or status polling only. */
  SVC_SETTLE_CONFIRMATION: v.optional(v.picklist(["subscribe", "poll"], 'must be "subscribe" or "poll"'), "subscribe"),
  /** Where the exactly-once settle ledger lives: a Durable Object per payment next to the request, or D1 (docs/scale.md). */
  SVC_SETTLE_LEDGER: v.optional(v.picklist(["object", "d1"], 'must be "object" or "d1"'), "object"),

  // Program ids and mints: empty means "the cluster default" (src/platform/config/networks.ts).
  UNIVERSAL_SETTLE_PROGRAM_ID: optionalAddress,
  SLA_ESCROW_PROGRAM_ID: optionalAddress,
  PAYMENT_CHANNELS_PROGRAM_ID: optionalAddress,
  USDC_MINT: optionalAddress,
  USDT_MINT: optionalAddress,

  FEE_PAYER_SECRET_KEY: v.pipe(v.string("is required (a Worker secret)"), v.minLength(1, "is required (a Worker secret)")),
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
  SVC_JIT_PROVISIONING_DAILY_CAP: integer(0, 1_000_000, 25),
  /** JSON map mint → smallest payment for which a vault is fronted (raw units); default: the program's recovery target. */
  SVC_JIT_MIN_PAYMENT_RAW_BY_MINT: mintThresholdMap,
  /** Days a settle attempt row (the seller's payment history) is kept before the scheduled purge. */
  SVC_ATTEMPT_RETENTION_DAYS: integer(1, 3_650, 90),
  /** JSON map mint → smallest payment (raw units) verify and settle accept; unlisted mints use the program's minimum fee. */
  SVC_MIN_PAYMENT_RAW_BY_MINT: mintThresholdMap,

  /** Below this fee payer balance /health says "degraded" and the optional spenders stop (sweeps, keeper payouts, just-in-time vaults). */
  SVC_FEE_PAYER_MIN_LAMPORTS: u64(100_000_000n),
  /** Below this fee payer balance settles answer 503 (it must not exceed SVC_FEE_PAYER_MIN_LAMPORTS). */
  SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS: u64(10_000_000n),

  SVC_SWEEP_CRON_COOLDOWN_SEC: integer(0, 31_536_000, 300),
  SVC_SWEEP_CRON_RECENT_SETTLE_WINDOW_SEC: integer(0, 31_536_000, 86_400),
  SVC_SWEEP_CRON_BATCH_LIMIT: integer(1, 1_000, 50),
  SVC_SWEEP_MIN_SPENDABLE_LAMPORTS: u64(30_000_000n),
  /** Empty means the cluster default: 3 USDC on mainnet, 0.10 USDC on devnet (docs/facilitator-spec.md §8). */
  SVC_SWEEP_MIN_SPL_RAW_DEFAULT: v.optional(v.union([v.literal(""), v.pipe(trimmed, v.regex(/^\d{1,20}$/, "must be a whole number"))]), ""),
  SVC_SWEEP_MIN_SPL_RAW_BY_MINT: mintThresholdMap,

  SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: boolean(false),
  /** Sponsored fundings of one payer that may fail on chain (fee paid by the fee payer) in 24 h before its sponsorship is refused. */
  SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER: integer(1, 1_000, 2),
  /** Days a finished escrow-keeper watch row (closed, dropped, stuck) is kept before the scheduled purge. */
  SVC_ESCROW_WATCH_RETENTION_DAYS: integer(1, 3_650, 30),
  /** Oracle authorities a buyer may name in FundPayment (comma or space separated); advertised as extra.oracleAuthorities. */
  SVC_SLA_ESCROW_ORACLE_AUTHORITIES: mintList,
  /** Seconds a seller needs to deliver: the escrow ttl must cover the program's delivery cutoff plus this budget. */
  SVC_SLA_ESCROW_DELIVERY_BUDGET_SECONDS: integer(0, 2_592_000, 300),

  /**
   * `upto` delegated mode: the key that signs vouchers for sellers that let the facilitator authorize their claims
   * (advertised as extra.receiverAuthorizer), in the FEE_PAYER_SECRET_KEY forms. Empty = sellers sign their own.
   */
  SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY: v.optional(v.string(), ""),
  /** Bearer token a seller's server must send (Authorization header) on delegated deposits and claims; required with the key. */
  SVC_UPTO_DELEGATED_SETTLE_TOKEN: v.optional(v.string(), ""),
  /** Bounds of a channel's grace period (`extra.withdrawDelay`, seconds), advertised in /supported. */
  SVC_UPTO_MIN_WITHDRAW_DELAY_SECONDS: integer(1, 31_536_000, 60),
  SVC_UPTO_MAX_WITHDRAW_DELAY_SECONDS: integer(1, 31_536_000, 86_400),
  /**
   * Owner of the payment-channels treasury token accounts (a build-time constant of the deployed program, which
   * Distribute checks). Empty = the cluster default in src/platform/config/networks.ts, which says where each value comes from.
   */
  SVC_UPTO_TREASURY_OWNER: optionalAddress,
  /** Longest `maxTimeoutSeconds` (and voucher expiry) of an upto payment: how long a channel's rent may be out at most before the keeper may close it. */
  SVC_UPTO_MAX_CHANNEL_LIFETIME_SECONDS: integer(60, 31_536_000, 3_600),
  /**
   * JSON map mint → smallest upto ceiling (raw units). Unlisted mints: SVC_MIN_PAYMENT_RAW_BY_MINT's entry for the mint
   * when larger, else 0.01 of a whole token (10^(decimals − 2) raw, the exact rail's documented minimum for a 6-decimal coin).
   */
  SVC_UPTO_MIN_CEILING_RAW_BY_MINT: mintThresholdMap,
  /**
   * Open-mint mode only (SVC_ALLOWED_PAYMENT_MINTS empty): freeze authorities an upto mint may have. Any other
   * (except the cluster's USDC/USDT, named by USDC_MINT/USDT_MINT) could freeze a channel's escrow and lock its rent.
   */
  SVC_UPTO_TRUSTED_FREEZE_AUTHORITIES: mintList,
  /** Live upto channels (their rent out) one buyer wallet may have at once. */
  SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER: integer(0, 1_000_000, 10),
  /** Live upto channels paying one payTo at once. */
  SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAY_TO: integer(0, 1_000_000, 100),
  /** upto channel opens one buyer wallet may make in a rolling hour (opens refused before the send do not count). */
  SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR: integer(0, 1_000_000, 30),

  /** Rent the fee payer may have out (fronted, expected back) for one buyer wallet, every rail together. */
  SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS: u64(50_000_000n),
  /** Rent the fee payer may have out for one payTo (seller), every rail together. */
  SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS: u64(500_000_000n),
  /** All the rent the fee payer may have out, in basis points of its current balance. */
  SVC_FEE_PAYER_MAX_RENT_SHARE_BPS: integer(0, 10_000, 5_000),
  /** Lamports the fee payer may spend for good in a rolling 24 h beyond the network fees of sellers' payments (rent left behind, sponsored fundings, keeper and sweep fees, priority fees). */
  SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: u64(1_000_000_000n),
  /** The same, caused by one buyer wallet. */
  SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS: u64(10_000_000n),
  /** The same, for one payTo (seller). */
  SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS: u64(50_000_000n),

  /** JSON array of oracle profiles for /capabilities (docs/facilitator-spec.md §2.9); replaces the canonical list when set. */
  SVC_SLA_ESCROW_ORACLE_PROFILES_JSON: oracleProfilesJson,
  /** Default operator hints of the canonical oracle profiles (used when the JSON key is empty). */
  SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY: optionalAddress,
  SVC_SLA_ESCROW_ONCHAIN_TRANSFER_DEFAULT_PUBKEY: optionalAddress,
  SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY: optionalAddress,

  /** Resource probe may reach loopback (a seller on the same machine). Empty = on in local, off elsewhere; never on outside local. */
  SVC_PROBE_ALLOW_LOOPBACK: v.optional(
    v.pipe(trimmed, v.toLowerCase(), v.picklist(["", "true", "false", "1", "0", "yes", "no"], "must be true/false, 1/0 or yes/no")),
    "",
  ),
  /** Consecutive failed probes after which a resource drops out of listings (until a probe passes again). */
  SVC_PROBE_MAX_FAILURES: integer(1, 100, 3),
  /** Live (not retired) resources one wallet may register; each is one probe subrequest per probe cycle. */
  SVC_MAX_RESOURCES_PER_WALLET: integer(1, 10_000, 100),
  /** Resources the probe cron re-probes per run (each is one subrequest; see src/directory/resources/probe-run.ts). */
  SVC_PROBE_CRON_BATCH_LIMIT: integer(1, 900, 400),
  /** The Cloudflare Workers plan: "free" runs one job per Cron invocation within 50 subrequests (src/platform/config/workers-plan.ts). */
  SVC_WORKERS_PLAN: v.optional(v.picklist(WORKERS_PLANS, 'must be "paid" or "free"'), "paid"),
  /**
   * `exact` to the seller's own wallet (its token account for the mint), as the official facilitator settles it, beside
   * the vault path. Empty = on in local, off elsewhere (docs/facilitator-spec.md §1 rule 1: vault only, unless the
   * operator opts in).
   */
  SVC_EXACT_WALLET_PAYTO: v.optional(
    v.pipe(trimmed, v.toLowerCase(), v.picklist(["", "true", "false", "1", "0", "yes", "no"], "must be true/false, 1/0 or yes/no")),
    "",
  ),
});

export type ConfigInput = v.InferOutput<typeof ConfigInputSchema>;
export const CONFIG_KEYS = Object.keys(ConfigInputSchema.entries) as (keyof typeof ConfigInputSchema.entries)[];

/** Keys that are Worker secrets: the D1 `parameters` table may override them but they are never echoed. */
export const SECRET_KEYS = new Set(["FEE_PAYER_SECRET_KEY", "SVC_SWEEP_CRON_TOKEN", "CHALLENGE_MAC_KEY", "SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY", "SVC_UPTO_DELEGATED_SETTLE_TOKEN"]);
