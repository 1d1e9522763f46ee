import type { Config } from "../../platform/config/load-config";
import { type ExposureSummary, readExposureSummary } from "../../store/fee-payer-exposure";
import { SPEND_WINDOW_MS, totalRentLimitLamports } from "./caps";
import type { RailExposure } from "./rail-exposure";

/**
 * One cap: its limit, the largest use of it (of the tightest wallet, or in total) and what is left (decimal strings for
 * lamports).
 */
export interface CapView {
  key: string;
  limit: string;
  used: string;
  headroom: string;
}

/**
 * /health's `feePayerExposure`: what the fee payer has out and has spent beyond sellers' network fees, and each cap's
 * headroom.
 */
export interface ExposureHealth {
  /**
   * Rent out (fronted, expected back) per rail and per fee payer that fronted it (with key rotation, an old key's
   * rent may still be out; "unrecorded": rows written before the fee payer was recorded), lamports.
   */
  rentOutLamports: { total: string; byRail: Record<string, string>; byFeePayer: Record<string, string> };
  /** Lamports spent for good in the last 24 h per rail, per pool (buyers, sellers, jobs) and per fee payer. */
  spentLast24hLamports: {
    total: string;
    byRail: Record<string, string>;
    byPool: Record<string, string>;
    byFeePayer: Record<string, string>;
  };
  /** Then each rail's own members (`RailExposureHealth.report`), e.g. its live accounts holding rent. */
  [railMember: string]: unknown;
  /**
   * Per-wallet caps show their tightest wallet; the totals the fee payer as a whole (the share against the balance read
   * for /health).
   */
  caps: Record<string, CapView>;
}

/**
 * What is out and spent, from one D1 batch of small aggregates over the live rows and the last day's spent rows, with
 * each rail's own figures (`rails`: the app's rails' exposure ports).
 */
export function readExposure(
  config: Config,
  db: D1Database,
  rails: readonly RailExposure[],
  nowMs = Date.now(),
): Promise<ExposureSummary> {
  const railFigures = rails.flatMap((rail) => (rail.health ? [rail.health.figuresSql(nowMs)] : []));
  return readExposureSummary(db, config.railRentRows, nowMs - SPEND_WINDOW_MS, railFigures);
}

/** /health's view of `summary`; the share's limit needs the balance (unknown when it could not be read). */
export function exposureHealth(
  config: Config,
  summary: ExposureSummary,
  balanceLamports: bigint | null,
  rails: readonly RailExposure[],
): ExposureHealth {
  const caps = config.feePayerBudget;
  const largest = summary.largest;
  const rentOut = sum(summary.rentOutByRail);
  const spent = sum(summary.spentSinceByRail);
  const view = (key: string, limit: bigint | number | null, used: bigint | number): CapView => {
    const headroom = limit === null ? null : BigInt(limit) - BigInt(used);
    return {
      key,
      limit: limit === null ? "unknown" : String(limit),
      used: String(used),
      headroom: headroom === null ? "unknown" : String(headroom > 0n ? headroom : 0n),
    };
  };
  // The same rails in the same order as readExposure's, so each reads its own row.
  const railReports = rails
    .flatMap((rail) => (rail.health ? [rail.health] : []))
    .map((health, i) => health.report(config, summary.railFigures[i] ?? {}));
  return {
    rentOutLamports: {
      total: rentOut.toString(),
      byRail: strings(summary.rentOutByRail),
      byFeePayer: strings(summary.rentOutByFeePayer),
    },
    spentLast24hLamports: {
      total: spent.toString(),
      byRail: strings(summary.spentSinceByRail),
      byPool: strings(summary.spentSinceByPool),
      byFeePayer: strings(summary.spentSinceByFeePayer),
    },
    ...Object.assign({}, ...railReports.map((report) => report.members)),
    caps: {
      rentShare: view(
        `SVC_FEE_PAYER_MAX_RENT_SHARE_BPS (${caps.rentShareBps} bps of the balance)`,
        balanceLamports === null ? null : totalRentLimitLamports(caps, balanceLamports),
        rentOut,
      ),
      rentPerPayer: view(
        "SVC_FEE_PAYER_MAX_RENT_PER_PAYER_LAMPORTS",
        caps.rentPerPayerLamports,
        largest.rentOfOnePayer,
      ),
      rentPerPayTo: view(
        "SVC_FEE_PAYER_MAX_RENT_PER_PAY_TO_LAMPORTS",
        caps.rentPerPayToLamports,
        largest.rentOfOnePayTo,
      ),
      spendPerDay: view(
        "SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS",
        caps.spendPerDayLamports,
        summary.spentSinceByPool.jobs ?? 0n,
      ),
      buyerSpendPerDay: view(
        "SVC_FEE_PAYER_MAX_BUYER_SPEND_PER_DAY_LAMPORTS",
        caps.buyerSpendPerDayLamports,
        summary.spentSinceByPool.buyers ?? 0n,
      ),
      provenSellersSpendPerDay: view(
        "SVC_FEE_PAYER_MAX_PROVEN_SELLERS_SPEND_PER_DAY_LAMPORTS",
        caps.provenSellersSpendPerDayLamports,
        summary.spentSinceByPool.sellers ?? 0n,
      ),
      spendPerProvenSellerPerDay: view(
        "SVC_FEE_PAYER_MAX_SPEND_PER_PROVEN_SELLER_PER_DAY_LAMPORTS",
        caps.provenSellerSpendPerDayLamports,
        largest.spentForOneProvenSeller,
      ),
      spendPerPayerPerDay: view(
        "SVC_FEE_PAYER_MAX_SPEND_PER_PAYER_PER_DAY_LAMPORTS",
        caps.spendPerPayerPerDayLamports,
        largest.spentByOnePayer,
      ),
      spendPerPayToPerDay: view(
        "SVC_FEE_PAYER_MAX_SPEND_PER_PAY_TO_PER_DAY_LAMPORTS",
        caps.spendPerPayToPerDayLamports,
        largest.spentForOnePayTo,
      ),
      ...Object.fromEntries(
        railReports.flatMap((report) =>
          Object.entries(report.caps).map(([name, cap]) => [name, view(cap.key, cap.limit, cap.used)]),
        ),
      ),
    },
  };
}

function sum(byRail: Record<string, bigint>): bigint {
  return Object.values(byRail).reduce((a, b) => a + b, 0n);
}

function strings(byRail: Record<string, bigint>): Record<string, string> {
  return Object.fromEntries(Object.entries(byRail).map(([rail, lamports]) => [rail, lamports.toString()]));
}
