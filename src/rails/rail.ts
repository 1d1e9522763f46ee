import type { Address } from "@solana/kit";
import type { RailExposure } from "../chain/fee-payer-budget/rail-exposure";
import type { RouteDef } from "../http/route-def";
import type { ScheduledJob } from "../jobs/scheduled-job";
import type { Config } from "../platform/config/load-config";
import type { RailConfigSlice } from "../platform/config/rail-config";
import type { RailSwitch } from "../platform/config/rail-switches";
import type { ErrorReason } from "../platform/errors/catalogue";
import type { SettleCall, SettleOutcome } from "../settlement/settle-engine";
import type { SchemeRules } from "../x402/common-checks";
import type { AcceptedRequirements, PaymentRejection } from "../x402/payment-verdict";
import type { RejectionReason } from "../x402/rejection-reasons";
import type { PayloadShape, PaymentRequiredBody, PaymentRequirements, VerifySettleBody } from "../x402/schemas";
import type { SchemeName } from "../x402/scheme-names";
import type { RailFeeQuote } from "./fee-quote";
import type { RailSellerView } from "./seller-view";

/**
 * A payment rail (x402 scheme): how `/supported` advertises it and how `/verify` and `/settle` handle its payments.
 *
 * Both `verify` and `settle` receive the body only after the common checks (`x402/common-checks.ts`) passed: the
 * scheme is this rail's, `paymentRequirements` equals `paymentPayload.accepted`, the network and asset are served.
 * Refusals use `rejection(reason, message)` with a core reason (`x402/rejection-reasons.ts`) or one of the rail's own
 * (`RailModule.reasons`, declared in its folder's `reasons.ts`).
 */
export interface Rail {
  scheme: SchemeName;
  /** `extra` advertised for this scheme in `/supported` (numbers as decimal strings); null when not served here. */
  supportedExtra(config: Config): Promise<Record<string, unknown> | null>;
  /**
   * Everything short of moving funds: decode, the rail's rules, signatures, chain facts; with `simulate`, a simulation
   * (`chain/simulate.ts`). `ledger` (verify only) lets a chain refusal of an already settled payment be named
   * (`settlement/already-settled.ts`). Writes nothing.
   */
  verify(
    config: Config,
    body: VerifySettleBody,
    accepted: AcceptedRequirements,
    options: { simulate: boolean; db?: D1Database },
  ): Promise<{ ok: true; payer: string } | PaymentRejection>;
  /**
   * Verify again (no trust in an earlier /verify; the send's preflight is the simulation), sign what the facilitator
   * must sign, and hand the payment to the settle engine (`settleSignedPayment`), which sends it exactly once and
   * reports success exactly once. A refusal before the engine is `settledWith(rejection)`. The route answers from
   * the outcome, records the seller's history from it and keeps `afterResponse` alive after the response.
   * `caller`: what the HTTP caller presented besides the body (its `Authorization: Bearer` token, null when none).
   */
  settle(
    config: Config,
    body: VerifySettleBody,
    accepted: AcceptedRequirements,
    call: SettleCall,
    caller: RailCaller,
  ): Promise<SettleOutcome>;
}

/** What the caller of /settle presented besides the body, for a rail whose settles depend on who calls. */
export interface RailCaller {
  /** The caller's `Authorization: Bearer` token, null when absent. */
  bearerToken: string | null;
}

/**
 * Where a rail's routes sit in the API table (http/api-routes.ts); their order among other rails' in that place is
 * the registry's `ROUTE_ORDER`. `sellerOnboarding` sits inside the sellers group (http/routes/sellers.ts), after the
 * rail lookup.
 */
export type RouteSlot = "builders" | "sellerOnboarding" | "sellerTools" | "operator";
export interface RailRoutes {
  slot: RouteSlot;
  routes: () => RouteDef[];
}

/**
 * Everything a rail is, as the rest of the Worker knows it: the `Rail` plus the optional parts below. A rail lives
 * in its own folder under `rails/`, exports one `RailModule` from its `module.ts`, and is one line of
 * `rails/registry.ts`. The app and the scheduled handler are built over a rails list (the Worker's: `RAILS`) and
 * build from its modules `/supported`, the verify/settle body's payload union, the common checks' scheme rules, the
 * rejection reasons' list, the enrich transform, the fee quote, the route table's rail groups, the seller views, the
 * self-description's rail parts, the rail Cron jobs, the retention purges and the configuration (`configOf`,
 * platform/config/load-config.ts). A rail folder
 * may import the payment core (`x402/`, `settlement/`, this folder's top-level files) and the shared layers
 * (`chain/`, `store/`, `platform/`, `jobs/keeper/`), never another rail's folder.
 */
export interface RailModule<ConfigMembers extends object = object> extends Rail, SchemeRules {
  /** The payload shape of its `/verify` and `/settle` body (rails may share one schema object). */
  payload: PayloadShape;
  /**
   * Its configuration keys and the members of `Config` it reads from them (`rails/<scheme>/config.ts`, which adds
   * those members to `Config`'s type by declaration merging, `RailConfigMembersByRail` of
   * platform/config/rail-config.ts).
   */
  // biome-ignore lint/suspicious/noExplicitAny: a slice is typed by its own keys, so no narrower type holds them all
  config?: RailConfigSlice<any, ConfigMembers>;
  /**
   * `amount` of a success answer (`SettleResponse.amount` of @x402/core), for a rail whose settled amount is not fixed
   * by the line.
   */
  settledAmount?(requirements: PaymentRequirements): string;
  /**
   * The seller transform (`POST /payment-required/enrich`): rewrites the body's lines of this scheme to pay through
   * this facilitator, leaving other lines alone. Rails enrich in the registry's `ENRICH_ORDER`.
   */
  enrich?: {
    run(config: Config, body: PaymentRequiredBody, correlationId?: string): Promise<PaymentRequiredBody>;
    /** What `run` can refuse a line with (besides a malformed line): listed in the enrich routes' OpenAPI reasons. */
    reasons: readonly ErrorReason[];
  };
  /** Its HTTP routes: builders, seller tools, operator routes. */
  routes?: readonly RailRoutes[];
  /** Its Cron jobs (keeper, sweep): they run on the rails' trigger in registry order. */
  jobs?: readonly ScheduledJob[];
  /** Its tables' old rows the retention job purges (jobs/retention/), in registry order after the core's. */
  retention?: readonly RailRetention[];
  /**
   * Its own rejection reasons (`rails/<scheme>/reasons.ts`), for the list the OpenAPI document gives, in registry
   * order.
   */
  reasons?: readonly RejectionReason[];
  /** Its answer to `GET /fee-quote?scheme=<scheme>` (rails/fee-quote.ts); absent: the scheme is not quoted. */
  quote?: RailFeeQuote;
  /** Its seller-facing views: its object in the seller preview and its rail lookup (rails/seller-view.ts). */
  seller?: RailSellerView;
  /** How the self-description documents speak of it. */
  describe?: RailDescription;
  /** What it adds to /health. */
  health?: RailHealth;
  /**
   * Its part in the fee payer's exposure budget: rent it fronts on rows of its own, its caps' reasons and /health
   * figures (chain/fee-payer-budget/rail-exposure.ts).
   */
  exposure?: RailExposure;
  /**
   * Whether the configuration lets it run (per `payTo` form where it has several), and why not
   * (platform/config/rail-switches.ts). Absent: always on.
   */
  switches?(config: Config): readonly RailFormSwitch[];
}

/**
 * One purge of a rail's table: rows older than `before` go, in bounded batches the retention job drives (its
 * `RETENTION_BATCH_SIZE` and `RETENTION_MAX_BATCHES`), so the job names no rail table.
 */
export interface RailRetention {
  /** The member of the run's outcome (and its log line) that counts the deleted rows, e.g. `escrowWatchRowsDeleted`. */
  outcome: string;
  /** The cutoff (ms since the epoch) for this run. */
  before(config: Config, nowMs: number): number;
  /** Deletes up to `batchSize` rows older than `beforeMs`, oldest first; how many went. */
  purge(db: D1Database, beforeMs: number, batchSize: number): Promise<number>;
}

/** One `payTo` form of a rail (none: the rail as a whole) and whether the configuration runs it. */
export interface RailFormSwitch {
  payToForm?: string;
  setting: RailSwitch;
}

const ALWAYS_ON: readonly RailFormSwitch[] = [{ setting: { enabled: true } }];

export function railSwitchesOf(rail: RailModule, config: Config): readonly RailFormSwitch[] {
  return rail.switches?.(config) ?? ALWAYS_ON;
}

/**
 * A rail's words in the self-description documents (every member optional; absent: the rail is not mentioned there).
 */
export interface RailDescription {
  /**
   * `/agent-payTo-semantics.json` `schemes[scheme]`: how a line's payTo resolves (it may depend on the configuration).
   */
  payTo?(config: Config): Record<string, unknown>;
  /** `/agent-payTo-semantics.json` `programs`: its program ids by name (null where not configured). */
  programIds?(config: Config): Record<string, Address | null>;
  /** `GET /payment-required/enrich`: the sentence on this rail's lines, and its `schemes[scheme]` entry. */
  enrich?: { sentence: string; payTo: Record<string, string> };
  /** `/capabilities` `features` flags (`served`: the scheme is in /supported; `routes`: the mounted route keys). */
  features?(served: boolean, routes: ReadonlySet<string>, config: Config): Record<string, boolean>;
  /** `/capabilities` members added at the end while the rail is served (`artifact`: a path made absolute). */
  capabilities?(config: Config, artifact: (path: string) => string): Record<string, unknown>;
  /** Figures the served guides state (`{{name}}` placeholders of docs/guides/), as this deployment applies them. */
  guideFigures?(config: Config): Promise<Record<string, string>>;
}

/** One program-wide account /health checks: where it is, and the decoder that must read it (null: unreadable). */
export interface ProgramAccountProbe {
  address: Address;
  decode(data: Uint8Array): unknown;
}

/** A rail's part of /health. */
export interface RailHealth {
  /** Members of the report, after the fee payer's exposure (each null when its database read fails). */
  report?(config: Config, db: D1Database | undefined): Promise<Record<string, unknown>>;
  /** `programs[key]`: the rail's program, and its program-wide accounts by name. */
  /** `programId` is null where the rail's program is not configured (the rail is then off, and not read). */
  program?: {
    key: string;
    programId(config: Config): Address | null;
    accounts(config: Config): Promise<Record<string, ProgramAccountProbe>>;
  };
  /**
   * pr402's `settlementKeeper` flags that name one of its jobs: flag → the job's `name`; the flag is true when that
   * job is wired to a Cron trigger of the app.
   */
  jobFlags?: Readonly<Record<string, string>>;
}
