import type { Config } from "../platform/config/load-config";
import { log } from "../platform/observability/log";
import { type PaymentRejection, rejection } from "../x402/payment-verdict";
import { type FeePayerBalanceReading, lastFeePayerBalance, readFeePayerBalance } from "./fee-payer-balance";

/** The reason optional spenders (sweeps, keeper payouts, just-in-time vaults) give when they stop. */
export const FEE_PAYER_BELOW_MINIMUM = "fee_payer_below_minimum";
/** The reason a settle gives (503) when the fee payer is below the settle floor. */
export const FEE_PAYER_BELOW_SETTLE_FLOOR = "fee_payer_below_settle_floor";

/** Jobs read the balance anew unless a reading this young exists (e.g. /health's, a moment ago). */
const JOB_BALANCE_MAX_AGE_MS = 1_000;
/**
 * Settles above the floor never wait for a balance read: they compare against the isolate's last reading, lowered by
 * every network fee and fronted rent this isolate has put out since (`noteFeePayerSpend`), and refresh it after the
 * response when it is older than this. What the reading misses is other isolates' (and the jobs') spending and the
 * operator's top-ups of the last minute; a reading below the floor is read again before it refuses anything. A
 * minute keeps the refresh under one call in a hundred settles at a steady rate, so a warm settle stays a send and a
 * subscription and nothing else.
 */
export const SETTLE_BALANCE_MAX_AGE_MS = 60_000;

export interface SpendingPause {
  reason: typeof FEE_PAYER_BELOW_MINIMUM;
  message: string;
  balanceLamports: string;
}

/**
 * Whether an optional spender must stop: null to go on, else why. One getBalance unless a reading younger than a
 * second exists; a failing read throws (the job reports its RPC fault and spends nothing).
 */
export async function optionalSpendingPause(config: Config, spender: string): Promise<SpendingPause | null> {
  const { lamports } = await readFeePayerBalance(config, JOB_BALANCE_MAX_AGE_MS);
  const minimum = config.feePayerFloors.minLamports;
  if (lamports >= minimum) return null;
  const message =
    `${FEE_PAYER_BELOW_MINIMUM}: the fee ` +
    `payer ${config.feePayer.address} holds ${lamports} lamports, below SVC_FEE_PAYER_MIN_LAMPORTS ` +
    `(${minimum}); ${spender} paused until it is refilled`;
  log("warn", "optional_spending_paused", {
    spender,
    reason: FEE_PAYER_BELOW_MINIMUM,
    balanceLamports: lamports.toString(),
    minLamports: minimum.toString(),
  });
  return { reason: FEE_PAYER_BELOW_MINIMUM, message, balanceLamports: lamports.toString() };
}

/**
 * A reading below the settle floor (or the budget's minimum) is read again before anything is refused for it, at most
 * this often per isolate (and never when the reading is younger): the operator's top-up takes effect within seconds,
 * not at the next minute.
 */
export const FLOOR_REREAD_MIN_INTERVAL_MS = 5_000;
/** When this isolate last started a floor re-read, per fee payer address (a value, never a shared promise). */
const lastFloorRereadAtMs = new Map<string, number>();

/**
 * The settle hot path's check. Above the floor it makes no RPC round trip: the isolate's last reading decides, and a
 * stale or missing reading is refreshed after the response (`defer`). With no reading yet the settle goes on (the
 * cluster itself refuses a fee payer that cannot pay). Below the floor the balance is read again first (at most once
 * every FLOOR_REREAD_MIN_INTERVAL_MS per isolate), so only a balance that is truly low refuses.
 */
export async function settleFloorRefusal(
  config: Config,
  payer: string,
  defer: (work: Promise<unknown>) => void,
): Promise<PaymentRejection | null> {
  let last = lastFeePayerBalance(config);
  const floor = config.feePayerFloors.settleFloorLamports;
  if (last && last.lamports < floor) {
    const read = await rereadLowBalance(config, last);
    if (read === last && Date.now() - last.readAtMs >= SETTLE_BALANCE_MAX_AGE_MS)
      defer(readFeePayerBalance(config, SETTLE_BALANCE_MAX_AGE_MS));
    last = read;
  } else if (!last || Date.now() - last.readAtMs >= SETTLE_BALANCE_MAX_AGE_MS) {
    defer(readFeePayerBalance(config, SETTLE_BALANCE_MAX_AGE_MS));
  }
  if (!last || last.lamports >= floor) return null;
  log("error", "settle_refused_fee_payer_low", {
    reason: FEE_PAYER_BELOW_SETTLE_FLOOR,
    balanceLamports: last.lamports.toString(),
    settleFloorLamports: floor.toString(),
  });
  const since =
    last.spentSinceReadLamports > 0n
      ? `, less ${last.spentSinceReadLamports} lamports this facilitator's settles have put out since`
      : "";
  return rejection(
    FEE_PAYER_BELOW_SETTLE_FLOOR,
    `The facilitator's fee ` +
      `payer ${config.feePayer.address} holds ${last.lamports} lamports (its balance read ` +
      `at ${new Date(last.readAtMs).toISOString()}${since}), ` +
      `below its settle floor SVC_FEE_PAYER_SETTLE_FLOOR_LAMPORTS ` +
      `(${floor}); settlement is paused until the operator refills it. Nothing was sent; retry later.`,
    { payer, code: "SERVICE_UNAVAILABLE" },
  );
}

/**
 * The one way a low balance reading is checked before anything is refused for it (the settle floor, the exposure
 * budget's minimum): read again, at most once every FLOOR_REREAD_MIN_INTERVAL_MS per isolate and never when the
 * reading is that young, so an operator's top-up takes effect within seconds everywhere. A failing read keeps `last`.
 */
export async function rereadLowBalance(config: Config, last: FeePayerBalanceReading): Promise<FeePayerBalanceReading> {
  const address = config.feePayer.address;
  const nowMs = Date.now();
  if (
    nowMs - last.readAtMs < FLOOR_REREAD_MIN_INTERVAL_MS ||
    nowMs - (lastFloorRereadAtMs.get(address) ?? 0) < FLOOR_REREAD_MIN_INTERVAL_MS
  )
    return last;
  lastFloorRereadAtMs.set(address, nowMs);
  return readFeePayerBalance(config, FLOOR_REREAD_MIN_INTERVAL_MS).catch(() => last);
}
